#!/usr/bin/env bash
set -euo pipefail
cd "$(dirname "$0")"
# -B: no __pycache__ next to the code; -I would drop cwd from sys.path, not needed here.
exec python3 -B triage.py "${1:?usage: ./run.sh record|replay}"
