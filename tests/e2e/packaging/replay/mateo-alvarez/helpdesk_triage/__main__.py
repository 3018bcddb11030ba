"""python -m helpdesk_triage record|replay"""

import json
import sys
import time
from pathlib import Path

from . import tapes
from .prompt import messages_for, read_verdict

OUT = Path("out")


def log(**event):
    OUT.mkdir(exist_ok=True)
    event["logged_at"] = time.strftime("%Y-%m-%d %H:%M:%S%z")
    with open(OUT / "run.log", "a", encoding="utf-8") as fh:
        print(json.dumps(event, sort_keys=True), file=fh)


def content_of(response: dict) -> str | None:
    try:
        return response["choices"][0]["message"]["content"]
    except (KeyError, IndexError, TypeError):
        return None


def to_row(ticket: dict, response: dict) -> dict:
    verdict = read_verdict(content_of(response))
    if verdict is None:
        raise SystemExit(f"no usable label in the answer for {ticket['id']}: {content_of(response)!r}")
    return {"id": ticket["id"], "label": verdict.label, "justification": verdict.justification}


def do_replay(tickets: list[dict]) -> list[dict]:
    rows = []
    for ticket in tickets:
        try:
            response = tapes.play(ticket["id"], messages_for(ticket))
        except tapes.TapeMissing as exc:
            raise SystemExit(f"replay failed: {exc}") from None
        rows.append(to_row(ticket, response))
    return rows


def do_record(tickets: list[dict]) -> list[dict]:
    from .client import ChatClient, RecordError

    try:
        client = ChatClient(log)
        rows = []
        for ticket in tickets:
            messages = messages_for(ticket)
            body = client.body(messages)
            response = client.complete(ticket["id"], body)
            if read_verdict(content_of(response)) is None:
                log(ticket=ticket["id"], note="unusable reply, asking once more")
                response = client.complete(ticket["id"], body)
            tapes.store(ticket["id"], messages, body, response)
            rows.append(to_row(ticket, response))
    except RecordError as exc:
        raise SystemExit(f"record failed: {exc}") from None
    log(mode="record", calls=client.calls)
    return rows


def main() -> None:
    mode = sys.argv[1] if len(sys.argv) == 2 else None
    if mode not in ("record", "replay"):
        raise SystemExit("usage: ./run.sh record|replay")
    tickets = json.loads(Path("tickets.json").read_text(encoding="utf-8"))
    rows = do_record(tickets) if mode == "record" else do_replay(tickets)
    OUT.mkdir(exist_ok=True)
    tmp = OUT / "answers.json.tmp"
    tmp.write_text(json.dumps(rows, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    tmp.replace(OUT / "answers.json")
    print(f"{mode}: wrote out/answers.json ({len(rows)} tickets)")


main()
