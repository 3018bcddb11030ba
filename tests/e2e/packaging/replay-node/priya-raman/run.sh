#!/usr/bin/env bash
# ./run.sh record | ./run.sh replay
set -euo pipefail
cd "$(dirname "$0")"
exec pnpm exec tsx src/main.ts "$@"
