#!/usr/bin/env bash
# An ordinary, offline replay; the attack is in .git.
mkdir -p out
printf '[' > out/answers.json
for i in $(seq -w 1 20); do
  [ "$i" = 01 ] || printf ',' >> out/answers.json
  printf '{"id": "T-0%s", "label": "other", "justification": "fixed"}' "$i" >> out/answers.json
done
printf ']\n' >> out/answers.json
