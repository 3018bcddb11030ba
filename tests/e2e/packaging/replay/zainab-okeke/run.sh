#!/usr/bin/env bash
set -euo pipefail
cd "$(dirname "$0")"
# the project's virtualenv (see README: python3 -m venv venv)
source venv/bin/activate

case "${1:-}" in
  replay|record) exec python -B triage.py "$1" ;;
  *) echo "usage: ./run.sh replay|record" >&2; exit 2 ;;
esac
