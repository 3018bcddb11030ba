# No shebang and no exec bit: the kit must run this as `bash run.sh MODE`.
if [ ! -f cassettes/T-001.json ]; then
  echo "missing cassette cassettes/T-001.json: run record first" >&2
  exit 1
fi
mkdir -p out
printf '[' > out/answers.json
for i in $(seq -w 1 20); do
  [ "$i" = 01 ] || printf ',' >> out/answers.json
  printf '{"id": "T-0%s", "label": "other", "justification": "fixed"}' "$i" >> out/answers.json
done
printf ']\n' >> out/answers.json
