"""Prints six's version and the first argument: enough to show the environment Pipenv made is the one run."""

import sys

import six

print(f"six {six.__version__}")
print(sys.argv[1] if len(sys.argv) > 1 else "no argument")
