"""`triage-svc record|replay`, run from the project root (run.sh does the cd)."""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

from . import cassettes
from .errors import TriageError
from .schema import UnusableReply, build_messages, parse_reply

TICKETS = Path("tickets.json")
OUT_DIR = Path("out")
ANSWERS = OUT_DIR / "answers.json"
RUN_LOG = OUT_DIR / "run.log"


def log(**event: Any) -> None:
    """Anything that changes between runs goes here, never into answers.json."""
    OUT_DIR.mkdir(exist_ok=True)
    event = {"ts": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), **event}
    with RUN_LOG.open("a", encoding="utf-8") as fh:
        fh.write(json.dumps(event, sort_keys=True, default=str) + "\n")


def write_answers(rows: list[dict[str, str]]) -> None:
    OUT_DIR.mkdir(exist_ok=True)
    tmp = ANSWERS.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(rows, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    os.replace(tmp, ANSWERS)


def replay(tickets: list[dict[str, str]]) -> list[dict[str, str]]:
    rows = []
    for ticket in tickets:
        messages = build_messages(ticket)
        response = cassettes.load(ticket["id"], messages)
        triage = parse_reply(response["choices"][0]["message"]["content"])
        rows.append({"id": ticket["id"], "label": triage.label, "justification": triage.justification})
    return rows


def record(tickets: list[dict[str, str]]) -> list[dict[str, str]]:
    from .live import ChatClient  # the only place httpx gets imported

    client = ChatClient(log)
    try:
        for ticket in tickets:
            messages = build_messages(ticket)
            body = client.request_body(messages)
            response = client.complete(ticket["id"], body)
            try:
                parse_reply(response["choices"][0]["message"]["content"])
            except (UnusableReply, KeyError, IndexError, TypeError) as exc:
                log(ticket=ticket["id"], unusable=str(exc))
                response = client.complete(ticket["id"], body)  # one more try, same budget
            cassettes.save(ticket["id"], messages, body, response)
    finally:
        log(mode="record", calls=client.calls)
        client.close()
    return replay(tickets)  # answers come from the tapes we just wrote, exactly like replay


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="triage-svc", description=__doc__)
    parser.add_argument("mode", choices=["record", "replay"])
    args = parser.parse_args(argv)

    tickets = json.loads(TICKETS.read_text(encoding="utf-8"))
    try:
        rows = record(tickets) if args.mode == "record" else replay(tickets)
    except TriageError as exc:
        print(f"triage-svc {args.mode}: {exc}", file=sys.stderr)
        log(mode=args.mode, error=str(exc))
        return 1

    write_answers(rows)
    print(f"triage-svc {args.mode}: wrote {ANSWERS} ({len(rows)} tickets)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
