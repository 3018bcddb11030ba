#!/bin/sh
# Usage: ./run.sh record | ./run.sh replay   (run `npm ci` once first)
cd "$(dirname "$0")" || exit 1
exec node src/index.mjs "$@"
