#!/usr/bin/env bash
# ./run.sh record|replay   (activate the venv from the README first)
set -euo pipefail
cd "$(dirname "$0")"
PYTHONPATH=src exec python -m triage "$@"
