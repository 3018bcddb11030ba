#!/usr/bin/env bash
# ./run.sh record | ./run.sh replay
set -eu
here="$(cd "$(dirname "$0")" && pwd)"
mode="${1:-}"
if [ "$mode" != "record" ] && [ "$mode" != "replay" ]; then
  echo "usage: ./run.sh record|replay" >&2
  exit 2
fi
exec python3 -B "$here/triager.py" "$mode"
