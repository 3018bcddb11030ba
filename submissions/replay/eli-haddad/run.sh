#!/usr/bin/env bash
set -euo pipefail
cd "$(dirname "$0")"

MODE="${1:-}"
if [[ "$MODE" != "replay" && "$MODE" != "record" ]]; then
  echo "usage: ./run.sh replay|record" >&2
  exit 1
fi

python3 -B app.py "$MODE"
