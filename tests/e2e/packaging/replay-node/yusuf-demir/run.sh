#!/bin/sh
# ./run.sh record | ./run.sh replay -- deno tasks from deno.json (replay has no --allow-net)
cd "$(dirname "$0")" || exit 1
case "$1" in
  record|replay) exec deno task --quiet "$1" ;;
  *) echo "usage: ./run.sh record|replay" >&2; exit 2 ;;
esac
