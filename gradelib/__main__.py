"""`python -m gradelib` runs the command line."""

from gradelib.cli import main

raise SystemExit(main())
