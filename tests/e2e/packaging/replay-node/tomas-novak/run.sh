#!/usr/bin/env bash
# ./run.sh record|replay -- runs the compiled code; build it once with `make`.
set -euo pipefail
cd "$(dirname "$0")"
if [[ ! -f dist/main.js ]]; then
  echo "dist/main.js not found: run \`make\` first (npm ci + tsc)" >&2
  exit 1
fi
exec node dist/main.js "$1"
