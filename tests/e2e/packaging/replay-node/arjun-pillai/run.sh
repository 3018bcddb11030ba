#!/usr/bin/env bash
# ./run.sh record|replay  -- runs the compiled JS (npm run build first)
set -euo pipefail
cd "$(dirname "$0")"
if [ ! -f dist/main.js ]; then
  echo "dist/ is not built: run npm ci && npm run build" >&2
  exit 1
fi
exec node dist/main.js "$1"
