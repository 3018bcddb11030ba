import json
import os
import sys
import time
from pathlib import Path

from . import cassettes
from .prompt import build_request, parse_reply

OUT = Path("out")


def log(**fields):
    OUT.mkdir(exist_ok=True)
    entry = {"at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), **fields}
    with open(OUT / "run.log", "a", encoding="utf-8") as fh:
        fh.write(json.dumps(entry, sort_keys=True) + "\n")


def write_answers(rows):
    OUT.mkdir(exist_ok=True)
    tmp = OUT / "answers.json.tmp"
    tmp.write_text(json.dumps(rows, indent=2, sort_keys=True, ensure_ascii=False) + "\n", encoding="utf-8")
    os.replace(tmp, OUT / "answers.json")


def main(argv):
    if argv not in (["record"], ["replay"]):
        print("usage: python -m triage record|replay", file=sys.stderr)
        return 2
    mode = argv[0]
    tickets = json.loads(Path("tickets.json").read_text(encoding="utf-8"))

    if mode == "record":
        from .live import GiveUp, LiveModel

        try:
            model = LiveModel(os.environ.get("MODEL", "gpt-4o-mini"), log)
        except GiveUp as exc:
            print(f"record: {exc}", file=sys.stderr)
            return 1
        failure = GiveUp
    else:
        model = None
        failure = cassettes.CassetteMissing

    rows = []
    try:
        for ticket in tickets:
            request = build_request(ticket)
            if model is not None:
                response = model.complete(ticket["id"], request)
                cassettes.save(request, response)
            else:
                response = cassettes.load(ticket["id"], request)
            label, justification = parse_reply(response["choices"][0]["message"]["content"])
            rows.append({"id": ticket["id"], "label": label, "justification": justification})
    except failure as exc:
        print(f"{mode} failed: {exc}", file=sys.stderr)
        log(mode=mode, failed=str(exc))
        return 1

    write_answers(rows)
    calls = f", {model.calls} model calls" if model is not None else ""
    print(f"{mode}: {len(rows)} answers written to out/answers.json{calls}")
    log(mode=mode, answers=len(rows), calls=model.calls if model else 0)
    return 0


sys.exit(main(sys.argv[1:]))
