#!/usr/bin/env bash
# ./run.sh record | ./run.sh replay
set -euo pipefail
cd "$(dirname "$0")"

mode="${1:-}"
if [[ "$mode" != "record" && "$mode" != "replay" ]]; then
  echo "usage: ./run.sh record|replay" >&2
  exit 2
fi
exec python3 -B triage.py "$mode"
