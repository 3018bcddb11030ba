#!/usr/bin/env bash
# ./run.sh record|replay  -- after `uv sync --all-packages` (see README)
set -euo pipefail
cd "$(dirname "$0")"

mode="${1:-replay}"
exec uv run --frozen --package triage triage "$mode"
