"""Cassette storage: one JSON file per model call, cassettes/<sha256(request)[:20]>.json."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any


class MissingCassette(LookupError):
    pass


class CassetteStore:
    def __init__(self, root: Path) -> None:
        self.root = root

    @staticmethod
    def key(request: dict[str, Any]) -> str:
        canonical = json.dumps(request, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
        return hashlib.sha256(canonical.encode("utf-8")).hexdigest()[:20]

    def path(self, request: dict[str, Any]) -> Path:
        return self.root / f"{self.key(request)}.json"

    def get(self, ticket_id: str, request: dict[str, Any]) -> dict[str, Any]:
        path = self.path(request)
        try:
            with path.open(encoding="utf-8") as fh:
                return json.load(fh)["response"]
        except FileNotFoundError:
            raise MissingCassette(
                f"Missing cassette for ticket {ticket_id}: {path}\n"
                "Replay never calls the model. Run `./run.sh record` to create the fixtures."
            ) from None

    def put(self, ticket_id: str, request: dict[str, Any], response: dict[str, Any]) -> Path:
        self.root.mkdir(parents=True, exist_ok=True)
        path = self.path(request)
        doc = {"ticket_id": ticket_id, "request": request, "response": response}
        with path.open("w", encoding="utf-8") as fh:
            json.dump(doc, fh, indent=2, sort_keys=True, ensure_ascii=False)
            fh.write("\n")
        return path
