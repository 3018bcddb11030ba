#!/usr/bin/env bash
# ./run.sh record | ./run.sh replay
# Runs the nox session of the same name (nox: `pipx install nox`).
set -euo pipefail
cd "$(dirname "$0")"

case "${1:-}" in
    record | replay) exec nox --non-interactive -s "$1" ;;
    *) echo "usage: $0 record|replay" >&2; exit 2 ;;
esac
