"""One folder per ticket, one file per recorded call: cassettes/<ticket>/chat-<sha256(prompt)[:10]>.json"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

BASE = Path("cassettes")


class MissingCassette(Exception):
    def __init__(self, ticket_id: str, path: Path):
        super().__init__(f"ticket {ticket_id}: cassette {path} is missing. Re-record with `./run.sh record`.")


def _digest(messages: list[dict]) -> str:
    return hashlib.sha256(json.dumps(messages, sort_keys=True, ensure_ascii=False).encode()).hexdigest()[:10]


def location(ticket_id: str, messages: list[dict]) -> Path:
    return BASE / ticket_id / f"chat-{_digest(messages)}.json"


def replay(ticket_id: str, messages: list[dict]) -> dict:
    path = location(ticket_id, messages)
    if not path.is_file():
        raise MissingCassette(ticket_id, path)
    return json.loads(path.read_text(encoding="utf-8"))["response"]["json"]


def save(ticket_id: str, messages: list[dict], request: dict, status: int, body: dict) -> None:
    path = location(ticket_id, messages)
    path.parent.mkdir(parents=True, exist_ok=True)
    for stale in path.parent.glob("chat-*.json"):
        if stale != path:
            stale.unlink()
    record = {"request": {"method": "POST", "path": "/chat/completions", "json": request},
              "response": {"status": status, "json": body}}
    path.write_text(json.dumps(record, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
