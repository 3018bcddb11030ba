#!/usr/bin/env bash
# ./run.sh record|replay
set -euo pipefail
cd "$(dirname "$0")"
PY=python3
if [[ -x .venv/bin/python ]]; then PY=.venv/bin/python; fi
exec "$PY" -m triage_app "$@"
