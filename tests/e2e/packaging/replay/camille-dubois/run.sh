#!/usr/bin/env bash
# ./run.sh record|replay -- the recipes live in the justfile; `just setup` first.
set -euo pipefail
cd "$(dirname "$0")"
case "${1:-}" in
  record|replay) exec just "$1" ;;
  *) echo "usage: ./run.sh record|replay" >&2; exit 2 ;;
esac
