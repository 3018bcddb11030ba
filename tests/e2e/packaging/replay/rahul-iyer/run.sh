#!/usr/bin/env bash
# ./run.sh record|replay   -- needs `make setup` once (creates .venv)
set -euo pipefail
cd "$(dirname "$0")"

if [ ! -x .venv/bin/python ]; then
    echo "run \`make setup\` first (no .venv found)" >&2
    exit 1
fi
exec .venv/bin/python app/main.py "$@"
