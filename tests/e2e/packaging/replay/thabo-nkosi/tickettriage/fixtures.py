"""Cassettes: cassettes/<ticket>-<sha1 of the messages, 8 hex>.json, one per model call."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path


class FixtureMissing(Exception):
    pass


def _digest(messages: list[dict]) -> str:
    raw = json.dumps(messages, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha1(raw.encode("utf-8")).hexdigest()[:8]


def fixture_path(root: Path, ticket_id: str, messages: list[dict]) -> Path:
    return root / f"{ticket_id}-{_digest(messages)}.json"


def load(root: Path, ticket_id: str, messages: list[dict]) -> dict:
    path = fixture_path(root, ticket_id, messages)
    if not path.exists():
        raise FixtureMissing(
            f"fixture not found: {path.as_posix()} (ticket {ticket_id}). "
            "Replay does not call the model; run ./run.sh record to re-create the cassettes."
        )
    data = json.loads(path.read_text(encoding="utf-8"))
    return data["response"]["body"]


def save(root: Path, ticket_id: str, messages: list[dict], request: dict, status: int, body: dict) -> None:
    root.mkdir(parents=True, exist_ok=True)
    doc = {"request": request, "response": {"status": status, "body": body}}
    fixture_path(root, ticket_id, messages).write_text(
        json.dumps(doc, indent=2, sort_keys=True, ensure_ascii=False) + "\n", encoding="utf-8"
    )
