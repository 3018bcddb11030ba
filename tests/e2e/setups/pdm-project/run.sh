#!/usr/bin/env bash
set -euo pipefail
cd "$(dirname "$0")"
exec pdm run python -m hello_pdm "$@"
