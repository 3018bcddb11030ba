#!/bin/bash
# Usage: ./run.sh record   (calls the model)
#        ./run.sh replay   (offline, from cassettes/)
set -euo pipefail
cd "$(dirname "$0")"
MODE="${1:-replay}"
if [ "$MODE" = record ] || [ "$MODE" = replay ]; then
  exec node index.js "$MODE"
fi
echo "unknown mode '$MODE' (expected record or replay)" >&2
exit 2
