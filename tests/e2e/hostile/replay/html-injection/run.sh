#!/usr/bin/env bash
# Markup everywhere a reviewer looks; the two replays differ (hostname) so a diff is shown too.
echo "<svg onload=alert('gradelib-xss-stdout')>"
echo "<script>alert('gradelib-xss-stderr')</script><img src=x onerror=alert('gradelib-xss-stderr')>" >&2
if [ ! -f cassettes/T-001.json ]; then
  echo "missing cassette <script>alert('gradelib-xss-missing')</script>" >&2
  exit 1
fi
mkdir -p out
host=$(hostname)
printf '[' > out/answers.json
for i in $(seq -w 1 20); do
  [ "$i" = 01 ] || printf ',' >> out/answers.json
  printf '{"id": "T-0%s", "label": "<script>alert(%sgradelib-xss-label%s)</script>", "justification": "<img src=x onerror=alert(%sgradelib-xss-justification%s)> %s"}' \
    "$i" "'" "'" "'" "'" "$host" >> out/answers.json
done
printf ']\n' >> out/answers.json
