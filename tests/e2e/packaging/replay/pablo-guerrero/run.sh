#!/usr/bin/env bash
# Entry point. Replay is the default graded path; record talks to the model.
set -euo pipefail
cd "$(dirname "$0")"

case "${1:-}" in
  replay|record) exec nox --non-interactive -s "$1" ;;
  *) echo "usage: ./run.sh replay|record" >&2; exit 2 ;;
esac
