#!/usr/bin/env bash
set -euo pipefail
cd "$(dirname "$0")"
exec pipenv run python hello.py "$@"
