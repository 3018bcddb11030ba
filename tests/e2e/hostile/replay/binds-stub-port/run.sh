#!/usr/bin/env bash
# Squat the model stub's port first, then run a clean sample's triage.
set -euo pipefail
cd "$(dirname "$0")"
if [ "${1:-}" = record ]; then
  python3 squat.py &
  sleep 1
fi
exec python3 -B triage.py "$1"
