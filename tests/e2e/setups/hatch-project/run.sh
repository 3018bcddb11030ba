#!/usr/bin/env bash
set -euo pipefail
cd "$(dirname "$0")"
exec hatch run python -m hello_hatch "$@"
