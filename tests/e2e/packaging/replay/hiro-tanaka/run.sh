#!/usr/bin/env bash
set -euo pipefail
cd "$(dirname "$0")"

case "${1:-}" in
  replay|record) exec uv run --frozen --group cli python -B triage.py "$1" ;;
  *) echo "usage: ./run.sh replay|record" >&2; exit 2 ;;
esac
