#!/usr/bin/env bash
# ./run.sh record | ./run.sh replay
# Needs `npm ci` and the tape library built once (see README).
set -euo pipefail
cd "$(dirname "$0")"
exec node packages/cli/src/main.mjs "$1"
