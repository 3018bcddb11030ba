#!/usr/bin/env bash
set -o errexit -o nounset -o pipefail
cd -- "$(dirname -- "$0")"
if [ "$#" -ne 1 ]; then
  echo "usage: ./run.sh record|replay" >&2
  exit 2
fi
python3 -B main.py "$1"
