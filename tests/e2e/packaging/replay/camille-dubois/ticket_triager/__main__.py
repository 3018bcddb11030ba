from __future__ import annotations

import logging
import sys
from pathlib import Path

import orjson

from ticket_triager import cassette
from ticket_triager.parsing import messages, parse


def collect(tickets: list[dict]) -> list[dict]:
    out = []
    for ticket in tickets:
        response = cassette.read(ticket["id"], messages(ticket))
        result = parse(response["choices"][0]["message"]["content"])
        if result is None:
            raise cassette.CassetteMissing(f"cassettes/{ticket['id']}.json has no usable label")
        out.append({"id": ticket["id"], "label": result[0], "justification": result[1]})
    return out


def main() -> int:
    mode = sys.argv[1] if len(sys.argv) == 2 else None
    if mode not in ("record", "replay"):
        print("usage: python -m ticket_triager record|replay", file=sys.stderr)
        return 2
    Path("out").mkdir(exist_ok=True)
    logging.basicConfig(filename="out/run.log", level=logging.INFO, format="%(asctime)s %(name)s: %(message)s")
    tickets = orjson.loads(Path("tickets.json").read_bytes())
    if mode == "record":
        from ticket_triager.recorder import RecordFailed, record

        try:
            record(tickets)
        except RecordFailed as exc:
            print(f"record failed: {exc}", file=sys.stderr)
            return 1
    try:
        answers = collect(tickets)
    except cassette.CassetteMissing as exc:
        print(f"{mode} failed: {exc} -- run `./run.sh record` to re-record", file=sys.stderr)
        return 1
    tmp = Path("out/answers.json.tmp")
    tmp.write_bytes(orjson.dumps(answers, option=orjson.OPT_INDENT_2 | orjson.OPT_APPEND_NEWLINE))
    tmp.rename("out/answers.json")
    print(f"{mode}: {len(answers)} answers written")
    return 0


sys.exit(main())
