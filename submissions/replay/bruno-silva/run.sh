#!/usr/bin/env bash
set -euo pipefail
cd "$(dirname "$0")"

mode="${1:-}"
case "$mode" in
  replay|record) exec node index.mjs "$mode" ;;
  *)
    echo "usage: $0 {replay|record}" >&2
    exit 64
    ;;
esac
