"""Cassettes: cassettes/<ticket>_<sha256(messages)[:8]>.json, one JSON line each."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

CASSETTE_DIR = Path("cassettes")


class CassetteMissing(FileNotFoundError):
    pass


def _key(messages: list[dict]) -> str:
    return hashlib.sha256(json.dumps(messages, sort_keys=True).encode()).hexdigest()[:8]


def cassette_for(ticket_id: str, messages: list[dict]) -> Path:
    return CASSETTE_DIR / f"{ticket_id}_{_key(messages)}.json"


def load_response(ticket_id: str, messages: list[dict]) -> dict:
    path = cassette_for(ticket_id, messages)
    if not path.exists():
        raise CassetteMissing(
            f"Missing cassette {path} for ticket {ticket_id}. Replay never calls the model: run `./run.sh record`."
        )
    return json.loads(path.read_text("utf-8"))["response"]


def save(ticket_id: str, messages: list[dict], request: dict, response: dict) -> Path:
    CASSETTE_DIR.mkdir(exist_ok=True)
    for old in CASSETTE_DIR.glob(f"{ticket_id}_*.json"):
        old.unlink()
    path = cassette_for(ticket_id, messages)
    path.write_text(json.dumps({"ticket": ticket_id, "request": request, "response": response}) + "\n", "utf-8")
    return path
