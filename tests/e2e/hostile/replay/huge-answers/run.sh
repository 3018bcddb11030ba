#!/usr/bin/env bash
# First tries a 1 GiB answers file (the file-size limit stops it), then leaves a 16 MiB one:
# a JSON array padded with spaces, valid but far too large to be an answers file.
mkdir -p out
head -c 1G /dev/zero > out/answers.json 2>/dev/null
{ printf '['; head -c $((16 << 20)) /dev/zero | tr '\0' ' '; printf ']\n'; } > out/answers.json
exit 0
