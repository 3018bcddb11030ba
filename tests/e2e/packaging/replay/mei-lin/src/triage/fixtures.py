"""Recorded calls. cassettes/<sha256 of the prompt, 12 hex>.json; the model id is not part of the key."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any


class FixtureMissing(Exception):
    pass


def key(messages: list[dict[str, str]]) -> str:
    return hashlib.sha256(json.dumps(messages, sort_keys=True).encode("utf-8")).hexdigest()[:12]


class Fixtures:
    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def path(self, messages: list[dict[str, str]]) -> Path:
        return self.folder / f"{key(messages)}.json"

    def get(self, ticket_id: str, messages: list[dict[str, str]]) -> dict[str, Any]:
        path = self.path(messages)
        if not path.exists():
            raise FixtureMissing(
                f"no fixture for ticket {ticket_id}: expected {path.name} in {self.folder.name}/ "
                "(run `./run.sh record`)"
            )
        data = json.loads(path.read_text(encoding="utf-8"))
        body: dict[str, Any] = data["response_body"]
        return body

    def put(self, ticket_id: str, messages: list[dict[str, str]], request: dict[str, Any],
            status: int, body: dict[str, Any]) -> None:
        self.folder.mkdir(exist_ok=True)
        entry = {"ticket_id": ticket_id, "request_body": request, "status_code": status, "response_body": body}
        path = self.path(messages)
        path.with_suffix(".tmp").write_text(json.dumps(entry, indent=2, sort_keys=True) + "\n", encoding="utf-8")
        path.with_suffix(".tmp").replace(path)
