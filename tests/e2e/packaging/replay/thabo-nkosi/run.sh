#!/usr/bin/env bash
# Usage: ./run.sh record|replay   (after `pip install -e .`, see README)
set -euo pipefail
cd "$(dirname "$0")"
export PYTHONDONTWRITEBYTECODE=1

mode="${1:-}"
if [ "$mode" != "record" ] && [ "$mode" != "replay" ]; then
    echo "Usage: ./run.sh record|replay" >&2
    exit 2
fi
exec tickettriage "$mode"
