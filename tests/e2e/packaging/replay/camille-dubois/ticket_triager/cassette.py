"""cassettes/<ticket id>.json: {"prompt_hash", "request", "response"} as compact JSON (orjson, sorted keys)."""

from __future__ import annotations

import hashlib
from pathlib import Path

import orjson

ROOT = Path("cassettes")


class CassetteMissing(Exception):
    pass


def prompt_hash(msgs: list[dict]) -> str:
    return hashlib.blake2b(orjson.dumps(msgs, option=orjson.OPT_SORT_KEYS), digest_size=12).hexdigest()


def read(ticket_id: str, msgs: list[dict]) -> dict:
    path = ROOT / f"{ticket_id}.json"
    try:
        doc = orjson.loads(path.read_bytes())
    except FileNotFoundError:
        raise CassetteMissing(f"{path} does not exist") from None
    if doc["prompt_hash"] != prompt_hash(msgs):
        raise CassetteMissing(f"{path} was recorded for another prompt")
    return doc["response"]


def write(ticket_id: str, request: dict, response: dict) -> None:
    ROOT.mkdir(exist_ok=True)
    doc = {"prompt_hash": prompt_hash(request["messages"]), "request": request, "response": response}
    path = ROOT / f"{ticket_id}.json"
    path.with_suffix(".tmp").write_bytes(orjson.dumps(doc, option=orjson.OPT_SORT_KEYS | orjson.OPT_APPEND_NEWLINE))
    path.with_suffix(".tmp").rename(path)
