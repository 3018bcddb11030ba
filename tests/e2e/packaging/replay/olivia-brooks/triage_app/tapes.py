from __future__ import annotations

import hashlib
import json
from pathlib import Path

from triage_app.models import Cassette, ChatCompletion

TAPE_DIR = Path("cassettes")


class MissingTape(RuntimeError):
    pass


def fingerprint(messages: list[dict]) -> str:
    return hashlib.sha256(json.dumps(messages, sort_keys=True, ensure_ascii=False).encode()).hexdigest()[:16]


def tape_file(ticket_id: str) -> Path:
    return TAPE_DIR / f"{ticket_id}.json"


def load(ticket_id: str, messages: list[dict]) -> ChatCompletion:
    path = tape_file(ticket_id)
    if not path.exists():
        raise MissingTape(f"missing fixture {path} for {ticket_id}: run ./run.sh record")
    tape = Cassette.model_validate_json(path.read_text(encoding="utf-8"))
    if tape.fingerprint != fingerprint(messages):
        raise MissingTape(f"fixture {path} does not match the current prompt: run ./run.sh record")
    return tape.response


def save(ticket_id: str, request: dict, response: dict) -> None:
    TAPE_DIR.mkdir(exist_ok=True)
    tape = Cassette(
        ticket_id=ticket_id,
        fingerprint=fingerprint(request["messages"]),
        request=request,
        response=ChatCompletion.model_validate(response),
    )
    tmp = tape_file(ticket_id).with_suffix(".partial")
    tmp.write_text(tape.model_dump_json(indent=2) + "\n", encoding="utf-8")
    tmp.replace(tape_file(ticket_id))
