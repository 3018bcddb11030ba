#!/usr/bin/env bash
set -eu
cd "$(dirname "${BASH_SOURCE[0]}")"
export PYTHONDONTWRITEBYTECODE=1 PYTHONUTF8=1

case "${1:-}" in
  record|replay) python3 triage.py "$1" ;;
  *) echo "usage: $0 record|replay" >&2; exit 2 ;;
esac
