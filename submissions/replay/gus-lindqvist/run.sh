#!/usr/bin/env bash
set -euo pipefail
cd "$(dirname "$0")"

case "${1:-}" in
  replay) python3 -B triage.py replay ;;
  record) python3 -B triage.py record ;;
  *) echo "usage: ./run.sh replay|record" >&2; exit 2 ;;
esac
