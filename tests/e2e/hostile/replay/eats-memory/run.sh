#!/usr/bin/env bash
# Allocates 64 MiB blocks (and writes to every page) until something stops it.
set -e
python3 -c '
blocks = []
while True:
    blocks.append(bytearray(b"x" * (64 << 20)))
'
