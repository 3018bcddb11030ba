#!/bin/sh
# usage: ./run.sh record|replay    (install first: flit install --symlink, see README)
set -e
cd "$(dirname "$0")"
exec ticketflow "$@"
