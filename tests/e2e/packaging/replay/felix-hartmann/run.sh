#!/usr/bin/env bash
set -euo pipefail
cd "$(dirname "$0")"
export PYTHONDONTWRITEBYTECODE=1

if [[ "${1:-}" != record && "${1:-}" != replay ]]; then
  echo "usage: ./run.sh record|replay" >&2
  exit 2
fi
# --frozen: use uv.lock exactly as committed, never re-resolve
exec uv run --frozen main.py "$1"
