#!/usr/bin/env bash
# ./run.sh record|replay -- each mode is a tox env (tox.ini), e.g. `tox -e replay`
set -euo pipefail
cd "$(dirname "$0")"
mode=${1:?usage: ./run.sh record|replay}
exec tox -q -e "$mode"
