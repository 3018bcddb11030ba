# /// script
# requires-python = ">=3.10"
# dependencies = ["six>=1.16"]
# ///
"""A single-file script with inline metadata, run with `uv run hello.py`."""

import sys

import six

print(f"six {six.__version__}; {' '.join(sys.argv[1:])}")
