"""Console script: `ticket-triage record|replay` (run from the project root)."""

from __future__ import annotations

import json
import logging
import sys
from pathlib import Path

from ticket_triage import store
from ticket_triage.triage import parse, prompt_messages

OUT_DIR = Path("out")


def answers(tickets: list[dict]) -> list[dict]:
    rows = []
    for ticket in tickets:
        response = store.load_response(ticket["id"], prompt_messages(ticket))
        result = parse(response["choices"][0]["message"]["content"])
        if result is None:
            raise ValueError(f"cassette for {ticket['id']} holds no valid label; re-record it")
        rows.append({"id": ticket["id"], "label": result.label, "justification": result.justification})
    return rows


def run() -> None:
    if len(sys.argv) != 2 or sys.argv[1] not in {"record", "replay"}:
        sys.exit("usage: ticket-triage record|replay")
    mode = sys.argv[1]
    OUT_DIR.mkdir(exist_ok=True)
    logging.basicConfig(
        filename=OUT_DIR / "run.log", level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s %(message)s"
    )
    tickets = json.loads(Path("tickets.json").read_text("utf-8"))
    try:
        if mode == "record":
            from ticket_triage.recording import RecordingFailed, record_all

            try:
                record_all(tickets)
            except RecordingFailed as exc:
                sys.exit(f"record failed: {exc}")
        rows = answers(tickets)
    except (store.CassetteMissing, ValueError) as exc:
        sys.exit(f"{mode} failed: {exc}")
    staging = OUT_DIR / ".answers.json.new"
    staging.write_text(json.dumps(rows, indent=2, ensure_ascii=False) + "\n", "utf-8")
    staging.replace(OUT_DIR / "answers.json")
    print(f"{mode}: {len(rows)} answers written to out/answers.json")
