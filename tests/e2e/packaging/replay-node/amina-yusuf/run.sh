#!/usr/bin/env bash
# ./run.sh record|replay  (compile first, see README)
set -euo pipefail
cd "$(dirname "$0")"
exec node build/main.js "$1"
