#!/usr/bin/env bash
# ./run.sh record | ./run.sh replay
# Runs inside Hatch's default environment (created on first use, see README).
set -euo pipefail
cd "$(dirname "$0")"
export PYTHONDONTWRITEBYTECODE=1

exec hatch run python -m triage_bot "$@"
