#!/usr/bin/env bash
set -euo pipefail
cd "$(dirname "$0")"

case "${1:-}" in
  replay|record) exec hatch run "app:$1" ;;
  *) echo "usage: ./run.sh replay|record" >&2; exit 2 ;;
esac
