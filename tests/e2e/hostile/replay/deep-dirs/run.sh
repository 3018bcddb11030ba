#!/usr/bin/env bash
# 1500 nested folders (deeper than Python's recursion limit), then normal answers.
python3 -c '
import os
start = os.getcwd()
for _ in range(1500):
    os.mkdir("d")
    os.chdir("d")
os.chdir(start)
'
mkdir -p out
printf '[' > out/answers.json
for i in $(seq -w 1 20); do
  [ "$i" = 01 ] || printf ',' >> out/answers.json
  printf '{"id": "T-0%s", "label": "other", "justification": "fixed"}' "$i" >> out/answers.json
done
printf ']\n' >> out/answers.json
