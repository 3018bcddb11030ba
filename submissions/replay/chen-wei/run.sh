#!/usr/bin/env bash
set -euo pipefail
cd "$(dirname "$0")"

if [[ $# -ne 1 ]] || [[ "$1" != "replay" && "$1" != "record" ]]; then
  echo "usage: ./run.sh replay|record" >&2
  exit 2
fi
exec node triage.js "$1"
