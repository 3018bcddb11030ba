#!/usr/bin/env bash
# ./run.sh record | replay   (run `poetry install` once first)
set -euo pipefail
cd "$(dirname "$0")"
exec poetry run ticket-triage "${1:?usage: ./run.sh record|replay}"
