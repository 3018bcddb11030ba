#!/usr/bin/env bash
set -euo pipefail
cd "$(dirname "$0")"

case "${1:-}" in
  replay|record) ;;
  *) echo "usage: ./run.sh <replay|record>" >&2; exit 2 ;;
esac

exec node src/main.js "$1"
