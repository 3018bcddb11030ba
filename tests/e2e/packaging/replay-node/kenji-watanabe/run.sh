#!/usr/bin/env bash
# ./run.sh record | ./run.sh replay      (bun install first)
set -euo pipefail
cd "$(dirname "$0")"
exec bun run src/main.ts "$1"
