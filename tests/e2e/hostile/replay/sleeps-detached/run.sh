#!/usr/bin/env bash
# Writes fine answers and exits 0, but leaves a detached grandchild (setsid, double fork) that
# sleeps past the timeout, then would rewrite the answers and a file outside the copy.
. ./targets.env
mkdir -p out
printf '[' > out/answers.json
for i in $(seq -w 1 20); do
  [ "$i" = 01 ] || printf ',' >> out/answers.json
  printf '{"id": "T-0%s", "label": "other", "justification": "fixed"}' "$i" >> out/answers.json
done
printf ']\n' >> out/answers.json
( setsid bash -c "( exec -a gradelib-hostile-sleeper bash -c 'sleep 600; echo late > out/answers.json; echo late > \"$OUTSIDE/sentinel.txt\"' ) &" & )
exit 0
