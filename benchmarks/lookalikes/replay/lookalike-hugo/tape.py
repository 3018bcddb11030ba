"""Cassettes: where a model reply is stored and how it is found again."""

from __future__ import annotations

import hashlib
import json
import os
import time
import urllib.error
import urllib.request
from pathlib import Path

CASSETTE_DIR = Path(__file__).resolve().parent / "cassettes"
MAX_CALLS = 40


class CassetteNotFound(LookupError):
    """Replay asked for a request that was never recorded."""


class BudgetExhausted(RuntimeError):
    pass


def request_key(payload: dict) -> str:
    """sha256 over the request in canonical JSON, so key order and spacing never matter."""
    blob = json.dumps(payload, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(blob.encode()).hexdigest()


def cassette_path(ticket_id: str, payload: dict) -> Path:
    return CASSETTE_DIR / f"{ticket_id}_{request_key(payload)[:16]}.json"


class Replayer:
    def complete(self, ticket_id: str, payload: dict) -> str:
        path = cassette_path(ticket_id, payload)
        try:
            tape = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise CassetteNotFound(
                f"no cassette {path.name} for ticket {ticket_id} (run ./run.sh record first)"
            ) from None
        return tape["response"]["choices"][0]["message"]["content"]


class Recorder:
    def __init__(self) -> None:
        self.url = os.environ.get("OPENAI_BASE_URL", "https://api.openai.com/v1").rstrip("/") + "/chat/completions"
        self.token = os.environ.get("OPENAI_API_KEY", "")
        self.model = os.environ.get("MODEL", "gpt-4o-mini")
        self.used = 0

    def complete(self, ticket_id: str, payload: dict) -> dict:
        """One HTTP call (counted against the budget). Returns the parsed response."""
        if self.used >= MAX_CALLS:
            raise BudgetExhausted(f"stopped: {MAX_CALLS} model calls used")
        self.used += 1
        req = urllib.request.Request(
            self.url,
            method="POST",
            data=json.dumps({**payload, "model": self.model}).encode(),
            headers={"Authorization": f"Bearer {self.token}", "Content-Type": "application/json"},
        )
        with urllib.request.urlopen(req, timeout=45) as r:
            return json.load(r)

    def save(self, ticket_id: str, payload: dict, response: dict) -> Path:
        CASSETTE_DIR.mkdir(exist_ok=True)
        path = cassette_path(ticket_id, payload)
        tape = {"ticket": ticket_id, "request": payload, "response": response}
        path.write_text(json.dumps(tape, indent=2, sort_keys=True) + "\n", encoding="utf-8")
        return path

    @staticmethod
    def pause(attempt: int) -> None:
        time.sleep(0.3 * attempt)
