#!/usr/bin/env bash
# Needs `poetry install` once (see README).
set -euo pipefail
cd "$(dirname "$0")"
export PYTHONDONTWRITEBYTECODE=1

case "${1:-}" in
  record|replay) ;;
  *) echo "usage: ./run.sh record|replay" >&2; exit 2 ;;
esac

exec poetry run python -m helpdesk_triage "$1"
