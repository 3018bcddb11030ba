#!/usr/bin/env bash
# ./run.sh record | ./run.sh replay   (setup: see README)
set -euo pipefail
cd "$(dirname "$0")"
exec node --env-file=.env bin/triage.js "$1"
