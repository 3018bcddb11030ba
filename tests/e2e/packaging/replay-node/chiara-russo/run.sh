#!/bin/sh
# ./run.sh record | ./run.sh replay
# Yarn Plug'n'Play: there is no node_modules, `yarn node` sets up the resolver.
cd "$(dirname "$0")" || exit 1
exec yarn node src/main.js "$1"
