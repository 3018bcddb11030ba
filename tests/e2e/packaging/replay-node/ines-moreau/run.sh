#!/usr/bin/env bash
# ./run.sh record|replay   (after `pnpm install`)
set -eu
cd "$(dirname "$0")"
exec pnpm --silent run triage "$@"
