#!/usr/bin/env bash
set -euo pipefail
cd "$(dirname "$0")"

mode="${1:-}"
if [[ "$mode" != "record" && "$mode" != "replay" ]]; then
  echo "usage: ./run.sh record|replay" >&2
  exit 1
fi
exec python3 -B main.py "$mode"
