"""Cassettes: cassettes/<ticket id>__<sha256(messages)[:10]>.json"""

import hashlib
import json
from pathlib import Path

TAPE_DIR = Path("cassettes")


class TapeMissing(Exception):
    pass


def tape_path(ticket_id: str, messages: list[dict]) -> Path:
    digest = hashlib.sha256(
        json.dumps(messages, sort_keys=True, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    ).hexdigest()[:10]
    return TAPE_DIR / f"{ticket_id}__{digest}.json"


def play(ticket_id: str, messages: list[dict]) -> dict:
    path = tape_path(ticket_id, messages)
    if not path.is_file():
        raise TapeMissing(
            f"cassette {path} not found for ticket {ticket_id} "
            "(deleted, or the prompt changed since recording). Run `./run.sh record`."
        )
    return json.loads(path.read_text(encoding="utf-8"))["response"]


def store(ticket_id: str, messages: list[dict], request: dict, response: dict) -> Path:
    TAPE_DIR.mkdir(exist_ok=True)
    path = tape_path(ticket_id, messages)
    for stale in TAPE_DIR.glob(f"{ticket_id}__*.json"):
        if stale != path:
            stale.unlink()
    path.write_text(
        json.dumps({"request": request, "response": response}, indent=2, sort_keys=True, ensure_ascii=False) + "\n",
        encoding="utf-8",
    )
    return path
