#!/usr/bin/env bash
# Replays from cassettes/ (whatever their names), echoing the names raw to stderr.
exec python3 - "$1" <<'PY'
import json, os, sys
names = sorted(os.listdir(b"cassettes")) if os.path.isdir("cassettes") else []
os.makedirs("out", exist_ok=True)
if sys.argv[1] == "record":
    with open(b"cassettes/" + b"\x1b[31m<img src=x onerror=alert('gradelib-xss-file')>\n\xff.json", "w") as handle:
        handle.write("{}")
elif not names:
    sys.stderr.buffer.write(b"missing cassette: run ./run.sh record first\n")
    sys.exit(1)
sys.stderr.buffer.write(b"read cassettes: " + b", ".join(names) + b"\n")
rows = [{"id": f"T-{n:03d}", "label": "other", "justification": "fixed"} for n in range(1, 21)]
with open("out/answers.json", "w") as handle:
    json.dump(rows, handle)
PY
