"""ticketflow record|replay (from the project root)."""

import argparse
import json
import logging
import sys
from pathlib import Path

from . import cassettes
from .prompting import chat_messages, interpret


def build(tickets):
    # always in tickets.json order, whatever order record finished in
    answers = []
    for ticket in tickets:
        payload = cassettes.read(ticket["id"], chat_messages(ticket))
        got = interpret(payload["choices"][0]["message"]["content"])
        if got is None:
            raise cassettes.CassetteMissing(f"cassette for {ticket['id']} has no usable answer")
        answers.append({"id": ticket["id"], "label": got[0], "justification": got[1]})
    return answers


def main(argv=None):
    parser = argparse.ArgumentParser(prog="ticketflow")
    parser.add_argument("mode", choices=["record", "replay"])
    mode = parser.parse_args(argv).mode

    out = Path("out")
    out.mkdir(exist_ok=True)
    logging.basicConfig(filename=out / "run.log", level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    tickets = json.loads(Path("tickets.json").read_text(encoding="utf-8"))

    if mode == "record":
        from .live import RecordError, record

        try:
            record(tickets)
        except RecordError as exc:
            print(f"ticketflow record: {exc}", file=sys.stderr)
            return 1
    try:
        answers = build(tickets)
    except cassettes.CassetteMissing as exc:
        print(f"ticketflow {mode}: {exc}", file=sys.stderr)
        return 1
    (out / "answers.json.tmp").write_text(json.dumps(answers, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    (out / "answers.json.tmp").replace(out / "answers.json")
    print(f"ticketflow {mode}: {len(answers)} answers")
    return 0


if __name__ == "__main__":
    sys.exit(main())
