#!/bin/sh
# Usage: ./run.sh record   (needs OPENAI_BASE_URL, OPENAI_API_KEY, optional MODEL)
#        ./run.sh replay   (offline)
cd "$(dirname "$0")" || exit 1
case "$1" in
  record|replay) exec python3 -B classify.py "$1" ;;
  *) echo "usage: $0 record|replay" >&2; exit 2 ;;
esac
