"""python -m triage record|replay  (PYTHONPATH=src; ./run.sh does that)"""

from __future__ import annotations

import json
import logging
import sys
from typing import Any

from triage.config import Paths
from triage.fixtures import FixtureMissing, Fixtures
from triage.labelling import prompt, understand

PATHS = Paths()
FIXTURES = Fixtures(PATHS.cassettes)


def content(body: dict[str, Any]) -> str | None:
    try:
        text = body["choices"][0]["message"]["content"]
    except (KeyError, IndexError, TypeError):
        return None
    return text if isinstance(text, str) else None


def answers(tickets: list[dict[str, str]]) -> list[dict[str, str]]:
    rows = []
    for ticket in tickets:
        parsed = understand(content(FIXTURES.get(ticket["id"], prompt(ticket))))
        if parsed is None:
            raise FixtureMissing(f"fixture for {ticket['id']} has no usable label (run `./run.sh record`)")
        rows.append({"id": ticket["id"], "label": parsed[0], "justification": parsed[1]})
    return rows


def record(tickets: list[dict[str, str]]) -> int:
    from triage.config import Endpoint
    from triage.recorder import GIVE_UP_AFTER_FAILED_TICKETS, Recorder, RecordError

    recorder = Recorder(Endpoint.from_env())
    failed: list[str] = []
    try:
        for ticket in tickets:
            messages = prompt(ticket)
            body = recorder.request_body(messages)
            got = recorder.ask(ticket["id"], body, lambda data: understand(content(data)) is not None)
            if got is None:
                failed.append(ticket["id"])
                if len(failed) >= GIVE_UP_AFTER_FAILED_TICKETS:
                    raise RecordError(f"{len(failed)} tickets failed ({', '.join(failed)}); the endpoint looks down")
                continue
            FIXTURES.put(ticket["id"], messages, body, got[0], got[1])
    except RecordError as exc:
        print(f"record: {exc}", file=sys.stderr)
        return 1
    finally:
        logging.getLogger("triage").info("record: %d calls", recorder.calls)
        recorder.close()
    if failed:
        print(f"record: no answer for {', '.join(failed)}", file=sys.stderr)
        return 1
    return 0


def main(argv: list[str]) -> int:
    if len(argv) != 1 or argv[0] not in {"record", "replay"}:
        print(__doc__, file=sys.stderr)
        return 2
    PATHS.out.mkdir(exist_ok=True)
    logging.basicConfig(filename=PATHS.out / "run.log", level=logging.INFO,
                        format="%(asctime)s %(levelname)s %(name)s %(message)s")
    tickets = json.loads(PATHS.tickets.read_text(encoding="utf-8"))
    if argv[0] == "record" and record(tickets):
        return 1
    try:
        rows = answers(tickets)
    except FixtureMissing as exc:
        print(f"{argv[0]}: {exc}", file=sys.stderr)
        return 1
    target = PATHS.out / "answers.json"
    target.with_suffix(".tmp").write_text(json.dumps(rows, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    target.with_suffix(".tmp").replace(target)
    print(f"{argv[0]}: {len(rows)} answers in out/answers.json")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
