"""Entry point: `python -m triage_bot record|replay` (run.sh does `hatch run` + the cd)."""

import sys

from triage_bot.runner import main

sys.exit(main(sys.argv[1:]))
