#!/usr/bin/env bash
set -euo pipefail
cd "$(dirname "$0")"
export PYTHONDONTWRITEBYTECODE=1

usage() { echo "usage: ./run.sh {replay|record}" >&2; exit 2; }

[[ $# -eq 1 ]] || usage
case "$1" in
  replay) python3 -m triage replay ;;
  record) python3 -m triage record ;;
  *) usage ;;
esac
