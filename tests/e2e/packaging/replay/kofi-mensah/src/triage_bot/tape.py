"""Cassettes: one JSON file per model call, `cassettes/<ticket id>.<key>.json`.

The key is the first 12 hex digits of sha256 over the messages we send. The model id
and the endpoint are not part of it, so replay does not depend on $MODEL. A changed
prompt gives a new key, so stale tapes are never read for a new prompt.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

TAPES = Path("cassettes")
FORMAT = 1


class TapeNotFound(LookupError):
    pass


def key_for(messages: list[dict]) -> str:
    canonical = json.dumps(messages, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()[:12]


def tape_path(ticket_id: str, messages: list[dict]) -> Path:
    return TAPES / f"{ticket_id}.{key_for(messages)}.json"


def play(ticket_id: str, messages: list[dict]) -> dict:
    """The recorded response body for this ticket and prompt."""
    path = tape_path(ticket_id, messages)
    try:
        raw = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise TapeNotFound(
            f"no cassette for ticket {ticket_id}: {path} does not exist. "
            "Record it with `./run.sh record` (needs OPENAI_BASE_URL / OPENAI_API_KEY)."
        ) from None
    return json.loads(raw)["response"]["body"]


def keep(ticket_id: str, messages: list[dict], request: dict, status: int, body: dict) -> Path:
    """Write the tape for one call, replacing older tapes of the same ticket."""
    TAPES.mkdir(exist_ok=True)
    path = tape_path(ticket_id, messages)
    tape = {
        "format": FORMAT,
        "ticket": ticket_id,
        "key": key_for(messages),
        "request": {"method": "POST", "path": "/chat/completions", "json": request},
        "response": {"status": status, "body": body},
    }
    part = path.with_name(path.name + ".part")
    part.write_text(json.dumps(tape, ensure_ascii=False, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    os.replace(part, path)
    for old in TAPES.glob(f"{ticket_id}.*.json"):
        if old != path:
            old.unlink()
    return path
