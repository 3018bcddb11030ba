#!/usr/bin/env bash
# ./run.sh record | replay  -> the triage CLI from packages/cli (npm ci first)
set -euo pipefail
cd "$(dirname "$0")"
case "${1:-}" in
  record|replay) exec node packages/cli/bin/triage.js "$1" ;;
  *) echo "usage: $0 record|replay" >&2; exit 2 ;;
esac
