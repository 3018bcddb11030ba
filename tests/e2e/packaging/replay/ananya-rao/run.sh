#!/usr/bin/env bash
# ./run.sh record|replay -- needs `pip install .` first (see README)
set -euo pipefail
cd "$(dirname "$0")"

case "${1:-}" in
  record|replay) exec triage-svc "$1" ;;
  *) echo "usage: ./run.sh record|replay" >&2; exit 2 ;;
esac
