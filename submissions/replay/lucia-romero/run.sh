#!/usr/bin/env bash
set -euo pipefail
cd "$(dirname "$0")"

if [[ $# -ne 1 || ( "$1" != record && "$1" != replay ) ]]; then
  echo "usage: $0 record|replay" >&2
  exit 2
fi
exec python3 -B triage.py "$1"
