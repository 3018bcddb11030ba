#!/usr/bin/env bash
set -euo pipefail
cd "$(dirname "$0")"
exec poetry run python hello.py "$@"
