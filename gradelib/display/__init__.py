"""Showing candidate text safely: escaping and sanitising, HTML and terminal views, error lines."""
