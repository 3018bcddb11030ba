"""Starting a team's own take-home: `gradelib new-takehome NAME` writes a package in the example's shape."""
