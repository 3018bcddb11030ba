"""The command line's commands, each next to its options: one module per group, as `gradelib --help` lists them.

Each command is a function that adds its subparser, its options and `run` (what it does, below it) to the
command line; `gradelib.cli` parses, calls `run`, and turns an error into one line and an exit status.
"""
