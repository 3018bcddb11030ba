#!/usr/bin/env bash
# ./run.sh record|replay -- Node 22 runs the TypeScript directly (type stripping), no build step.
set -euo pipefail
cd "$(dirname "$0")"
exec node --experimental-strip-types --disable-warning=ExperimentalWarning src/main.ts "$1"
