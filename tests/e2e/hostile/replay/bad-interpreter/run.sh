#!/nonexistent/interpreter
print("never runs")
