"""YAML cassettes, one per ticket: cassettes/<ticket>.yaml

Each holds the request we sent, the HTTP status and the parsed response body.
A `fingerprint` of the messages guards against replaying an answer recorded
for a different prompt.
"""

import hashlib
import json
from pathlib import Path

import yaml

DIR = Path("cassettes")


class NoTape(Exception):
    pass


def fingerprint(messages):
    blob = json.dumps(messages, ensure_ascii=False, sort_keys=True).encode("utf-8")
    return "sha256:" + hashlib.sha256(blob).hexdigest()


def path_for(ticket_id):
    return DIR / f"{ticket_id}.yaml"


def save(ticket_id, request, status, body):
    DIR.mkdir(exist_ok=True)
    tape = {
        "ticket": ticket_id,
        "fingerprint": fingerprint(request["messages"]),
        "request": request,
        "response": {"status": status, "body": body},
    }
    tmp = path_for(ticket_id).with_suffix(".yaml.tmp")
    with tmp.open("w", encoding="utf-8") as fh:
        yaml.safe_dump(tape, fh, sort_keys=False, allow_unicode=True, width=100)
    tmp.replace(path_for(ticket_id))


def load(ticket_id, messages):
    path = path_for(ticket_id)
    if not path.exists():
        raise NoTape(f"no cassette at {path} for ticket {ticket_id}")
    with path.open(encoding="utf-8") as fh:
        tape = yaml.safe_load(fh)
    if tape.get("fingerprint") != fingerprint(messages):
        raise NoTape(f"{path} was recorded for a different prompt (ticket {ticket_id})")
    return tape["response"]["body"]
