#!/usr/bin/env bash
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
cd "$here"
case "${1:-}" in
  record|replay) exec node triage.mjs "$1" ;;
esac
echo "usage: run.sh record|replay" >&2
exit 2
