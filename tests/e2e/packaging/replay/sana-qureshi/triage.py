"""Support ticket triage with a record/replay boundary.

    python triage.py record   # calls the model, writes cassettes/ and out/answers.json
    python triage.py replay   # offline, reads cassettes/, writes out/answers.json
"""

from __future__ import annotations

import json
import logging
import os
import sys
from pathlib import Path
from typing import Any

from cassette_store import CassetteStore, MissingCassette
from parsing import LABELS, parse_answer

ROOT = Path(__file__).resolve().parent
TICKETS = ROOT / "tickets.json"
OUT = ROOT / "out"
STORE = CassetteStore(ROOT / "cassettes")

SYSTEM_PROMPT = (
    "You are a customer-support triage assistant. Read the ticket and choose the single best "
    f"label from this list: {', '.join(LABELS)}. Respond with a JSON object with exactly two "
    'keys, "label" and "justification"; the justification is one sentence.'
)


class Failed(Exception):
    pass


def build_request(ticket: dict[str, str]) -> dict[str, Any]:
    return {
        "messages": [
            {"role": "system", "content": SYSTEM_PROMPT},
            {"role": "user", "content": f"Ticket {ticket['id']}:\n{ticket['body']}"},
        ],
        "temperature": 0,
        "response_format": {"type": "json_object"},
    }


def answer_row(ticket: dict[str, str], response: dict[str, Any]) -> dict[str, str]:
    try:
        content = response["choices"][0]["message"]["content"]
    except (KeyError, IndexError, TypeError):
        content = None
    parsed = parse_answer(content)
    if parsed is None:
        raise Failed(f"{ticket['id']}: the model's reply has no usable label: {content!r}")
    label, justification = parsed
    return {"id": ticket["id"], "label": label, "justification": justification}


def replay(tickets: list[dict[str, str]]) -> list[dict[str, str]]:
    rows = []
    for ticket in tickets:
        try:
            response = STORE.get(ticket["id"], build_request(ticket))
        except MissingCassette as exc:
            raise Failed(str(exc)) from None
        rows.append(answer_row(ticket, response))
    return rows


def record(tickets: list[dict[str, str]]) -> list[dict[str, str]]:
    from live_model import LiveModel, RecordAborted

    try:
        model = LiveModel(os.environ.get("MODEL", "gpt-4o-mini"))
        for ticket in tickets:
            request = build_request(ticket)
            STORE.put(ticket["id"], request, model.complete(ticket["id"], request))
    except RecordAborted as exc:
        raise Failed(f"record aborted: {exc}") from None
    logging.getLogger("triage").info("record finished with %d model calls", model.calls)
    return replay(tickets)


def write_answers(rows: list[dict[str, str]]) -> None:
    OUT.mkdir(exist_ok=True)
    tmp = OUT / "answers.json.part"
    with tmp.open("w", encoding="utf-8") as fh:
        json.dump(rows, fh, indent=2, ensure_ascii=False)
        fh.write("\n")
    tmp.replace(OUT / "answers.json")


def main(argv: list[str]) -> int:
    if len(argv) != 1 or argv[0] not in {"record", "replay"}:
        print(__doc__, file=sys.stderr)
        return 2
    OUT.mkdir(exist_ok=True)
    logging.basicConfig(
        filename=OUT / "run.log",
        level=logging.INFO,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    logging.getLogger("httpx").setLevel(logging.WARNING)
    mode = argv[0]
    tickets = json.loads(TICKETS.read_text(encoding="utf-8"))
    try:
        rows = record(tickets) if mode == "record" else replay(tickets)
    except Failed as exc:
        logging.getLogger("triage").error("%s", exc)
        print(f"error: {exc}", file=sys.stderr)
        return 1
    write_answers(rows)
    print(f"{mode}: {len(rows)} tickets -> {OUT.relative_to(ROOT) / 'answers.json'}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
