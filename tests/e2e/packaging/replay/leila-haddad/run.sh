#!/usr/bin/env bash
# ./run.sh record|replay  -- needs uv (https://docs.astral.sh/uv/); the deps are declared inline in triage.py
set -euo pipefail
cd "$(dirname "$0")"
export PYTHONDONTWRITEBYTECODE=1

# replay must not touch the network, not even for uv to look at PyPI: uv's cache only
if [ "${1:-}" = replay ]; then
  export UV_OFFLINE=1
fi
exec uv run triage.py "$@"
