#!/bin/sh
# Usage: ./run.sh record | ./run.sh replay   (run `yarn install` once first)
cd "$(dirname "$0")" || exit 1
exec yarn --silent start "$@"
