#!/usr/bin/env bash
# ./run.sh record|replay -> the PDM scripts of the same name (pyproject.toml [tool.pdm.scripts])
set -euo pipefail
cd "$(dirname "$0")"
mode="${1:-}"
[[ "$mode" == record || "$mode" == replay ]] || { echo "usage: ./run.sh record|replay" >&2; exit 2; }
exec pdm run "$mode"
