#!/usr/bin/env bash
set -euo pipefail
cd "$(dirname "$0")"

case "${1:-}" in
  record | replay) exec node src/main.mjs "$1" ;;
  *)
    echo "usage: ./run.sh record|replay" >&2
    exit 2
    ;;
esac
