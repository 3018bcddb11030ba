#!/usr/bin/env bash
# Usage: ./run.sh record|replay   (needs `make install` once: it builds build/triage.mjs)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"
if [[ ! -f build/triage.mjs ]]; then
  echo "build/triage.mjs is missing: run \`make install\` first" >&2
  exit 1
fi
exec node build/triage.mjs "${1:-}"
