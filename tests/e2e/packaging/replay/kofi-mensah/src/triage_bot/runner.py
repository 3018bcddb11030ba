"""The two modes. Replay only reads cassettes/; record calls the model and writes them."""

from __future__ import annotations

import argparse
import json
import os
import sys
from datetime import datetime, timezone
from pathlib import Path

from triage_bot import tape
from triage_bot.prompting import BadReply, Decision, decode, messages_for

TICKETS_FILE = Path("tickets.json")
OUT_DIR = Path("out")
ANSWERS_FILE = OUT_DIR / "answers.json"
RUN_LOG = OUT_DIR / "run.log"


class RunFailed(Exception):
    pass


def log_event(**fields: object) -> None:
    """Timings, token usage, model ids: out/run.log, never answers.json."""
    OUT_DIR.mkdir(exist_ok=True)
    fields = {"at": datetime.now(timezone.utc).isoformat(timespec="seconds"), **fields}
    with RUN_LOG.open("a", encoding="utf-8") as fh:
        fh.write(json.dumps(fields, sort_keys=True, default=str) + "\n")


def load_tickets() -> list[dict]:
    return json.loads(TICKETS_FILE.read_text(encoding="utf-8"))


def reply_text(body: dict) -> object:
    try:
        return body["choices"][0]["message"]["content"]
    except (KeyError, IndexError, TypeError):
        return None


def row(ticket: dict, decision: Decision) -> dict:
    return {"id": ticket["id"], "label": decision.label, "justification": decision.justification}


def replay(tickets: list[dict]) -> list[dict]:
    rows = []
    for ticket in tickets:
        try:
            body = tape.play(ticket["id"], messages_for(ticket))
        except tape.TapeNotFound as exc:
            raise RunFailed(str(exc)) from None
        try:
            rows.append(row(ticket, decode(reply_text(body))))
        except BadReply as exc:
            raise RunFailed(f"cassette for {ticket['id']} holds no usable answer ({exc}); re-record it") from None
    return rows


def record(tickets: list[dict]) -> list[dict]:
    # httpx is imported here and only here: replay never has an HTTP client.
    from triage_bot.model_api import ChatEndpoint, ModelCallFailed

    endpoint = None
    try:
        with ChatEndpoint(log_event) as endpoint:
            rows = []
            for ticket in tickets:
                messages = messages_for(ticket)
                payload = endpoint.payload(messages)
                status, body = endpoint.send(ticket["id"], payload)
                try:
                    decision = decode(reply_text(body))
                except BadReply as exc:
                    log_event(ticket=ticket["id"], unusable=str(exc))
                    status, body = endpoint.send(ticket["id"], payload)  # one more go, same budget
                    try:
                        decision = decode(reply_text(body))
                    except BadReply as again:
                        raise ModelCallFailed(f"ticket {ticket['id']}: unusable reply twice ({again})") from None
                tape.keep(ticket["id"], messages, payload, status, body)
                rows.append(row(ticket, decision))
    except ModelCallFailed as exc:
        raise RunFailed(str(exc)) from None
    finally:
        log_event(mode="record", calls=endpoint.calls if endpoint else 0)
    return rows


def write_answers(rows: list[dict]) -> None:
    OUT_DIR.mkdir(exist_ok=True)
    part = ANSWERS_FILE.with_name(ANSWERS_FILE.name + ".part")
    part.write_text(json.dumps(rows, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    os.replace(part, ANSWERS_FILE)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="triage_bot", description="Ticket triage, record/replay.")
    parser.add_argument("mode", choices=("record", "replay"))
    args = parser.parse_args(argv)

    tickets = load_tickets()
    try:
        rows = record(tickets) if args.mode == "record" else replay(tickets)
    except RunFailed as exc:
        print(f"{args.mode} failed: {exc}", file=sys.stderr)
        return 1
    write_answers(rows)
    print(f"{args.mode}: {len(rows)} tickets -> {ANSWERS_FILE}")
    return 0
