"""python -m triage_app record|replay"""

from __future__ import annotations

import json
import logging
import sys
from pathlib import Path

from triage_app import tapes
from triage_app.models import Answer, Ticket
from triage_app.reply import messages_for, parse_reply

OUT = Path("out")


def replay(tickets: list[Ticket]) -> list[Answer]:
    answers = []
    for t in tickets:
        completion = tapes.load(t.id, messages_for(t))
        parsed = parse_reply(completion.choices[0].message.content)
        if parsed is None:
            raise tapes.MissingTape(f"fixture for {t.id} has no valid label: run ./run.sh record")
        answers.append(Answer(id=t.id, label=parsed[0], justification=parsed[1]))
    return answers


def record(tickets: list[Ticket]) -> list[Answer]:
    from triage_app.client import ModelClient

    client = ModelClient()
    try:
        for t in tickets:
            body = client.body(messages_for(t))
            tapes.save(t.id, body, client.complete(t.id, body))
    finally:
        logging.getLogger("triage_app").info("%d model calls", client.count)
        client.close()
    return replay(tickets)


def main() -> int:
    if sys.argv[1:] not in (["record"], ["replay"]):
        print("usage: python -m triage_app record|replay", file=sys.stderr)
        return 2
    mode = sys.argv[1]
    OUT.mkdir(exist_ok=True)
    logging.basicConfig(filename=OUT / "run.log", level=logging.INFO, format="%(asctime)s %(message)s")
    tickets = [Ticket.model_validate(t) for t in json.loads(Path("tickets.json").read_text(encoding="utf-8"))]
    try:
        answers = record(tickets) if mode == "record" else replay(tickets)
    except tapes.MissingTape as e:
        print(f"{mode}: {e}", file=sys.stderr)
        return 1
    except Exception as e:  # client errors only exist in record mode
        if type(e).__name__ in ("Failed", "CapReached"):
            print(f"record stopped: {e}", file=sys.stderr)
            return 1
        raise
    doc = json.dumps([a.model_dump() for a in answers], indent=2, ensure_ascii=False) + "\n"
    (OUT / "answers.json.partial").write_text(doc, encoding="utf-8")
    (OUT / "answers.json.partial").replace(OUT / "answers.json")
    print(f"{mode}: {len(answers)} answers -> out/answers.json")
    return 0


if __name__ == "__main__":
    sys.exit(main())
