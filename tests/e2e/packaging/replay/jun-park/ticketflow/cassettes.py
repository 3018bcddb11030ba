"""cassettes/<ticket id>.call.json -- one recorded call per ticket (the one whose answer we kept)."""

import hashlib
import json
import os
from pathlib import Path

FOLDER = Path("cassettes")


class CassetteMissing(Exception):
    pass


def prompt_sha(messages):
    return hashlib.sha256(json.dumps(messages, separators=(",", ":"), sort_keys=True).encode()).hexdigest()


def file_for(ticket_id):
    return FOLDER / f"{ticket_id}.call.json"


def write(ticket_id, request, status, payload):
    FOLDER.mkdir(exist_ok=True)
    doc = {
        "meta": {"ticket": ticket_id, "prompt_sha256": prompt_sha(request["messages"])},
        "request": request,
        "http": {"status": status, "json": payload},
    }
    target = file_for(ticket_id)
    tmp = target.parent / (target.name + ".tmp")
    tmp.write_text(json.dumps(doc, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    os.replace(tmp, target)


def read(ticket_id, messages):
    target = file_for(ticket_id)
    if not target.is_file():
        raise CassetteMissing(f"{target}: no recorded call for ticket {ticket_id} (run `./run.sh record`)")
    doc = json.loads(target.read_text(encoding="utf-8"))
    if doc["meta"]["prompt_sha256"] != prompt_sha(messages):
        raise CassetteMissing(f"{target}: recorded for a different prompt (run `./run.sh record`)")
    return doc["http"]["json"]
