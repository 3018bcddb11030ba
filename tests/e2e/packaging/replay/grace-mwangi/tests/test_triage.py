import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import triage  # noqa: E402


def test_json_answer():
    assert triage.parse_answer(json.dumps({"label": "bug", "justification": "Crash on save."})) == (
        "bug",
        "Crash on save.",
    )


def test_plain_answer():
    assert triage.parse_answer("Label: account\nJustification: locked out") == ("account", "locked out")


def test_invalid_label():
    assert triage.parse_answer('{"label": "sales"}') is None


def test_every_ticket_has_a_cassette():
    tickets = json.loads(triage.TICKETS.read_text())
    assert [t["id"] for t in triage.answers_from_cassettes(tickets)] == [t["id"] for t in tickets]
