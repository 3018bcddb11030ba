#!/bin/bash
# Usage: ./run.sh record|replay
# Needs the package installed first:  pip install -e ".[test]"  (see README)
set -e
cd "$(dirname "$0")"
exec ticketsort "$@"
