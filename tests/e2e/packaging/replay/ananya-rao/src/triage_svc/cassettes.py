"""cassettes/<ticket id>.json: the request we sent and the provider's response, verbatim."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

from .errors import TriageError

CASSETTE_DIR = Path("cassettes")


class CassetteError(TriageError):
    pass


def fingerprint(messages: list[dict[str, str]]) -> str:
    """sha256 of the prompt. The model id is left out on purpose (see README)."""
    blob = json.dumps(messages, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


def path_for(ticket_id: str) -> Path:
    return CASSETTE_DIR / f"{ticket_id}.json"


def load(ticket_id: str, messages: list[dict[str, str]]) -> dict[str, Any]:
    path = path_for(ticket_id)
    if not path.is_file():
        raise CassetteError(
            f"missing cassette {path} (ticket {ticket_id}). Run `./run.sh record` to record it."
        )
    tape = json.loads(path.read_text(encoding="utf-8"))
    if tape.get("fingerprint") != fingerprint(messages):
        raise CassetteError(
            f"cassette {path} was recorded for a different prompt (ticket {ticket_id}). "
            "Run `./run.sh record` to refresh it."
        )
    return tape["response"]


def save(ticket_id: str, messages: list[dict[str, str]], request: dict[str, Any], response: dict[str, Any]) -> Path:
    CASSETTE_DIR.mkdir(exist_ok=True)
    path = path_for(ticket_id)
    tape = {"fingerprint": fingerprint(messages), "request": request, "response": response}
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(tape, indent=2, sort_keys=True, ensure_ascii=False) + "\n", encoding="utf-8")
    os.replace(tmp, path)
    return path
