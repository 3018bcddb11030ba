"""cassettes/<sha256 of the request, 24 hex>.json -> {"key", "ticket", "request", "response"}"""

import hashlib
import json
from pathlib import Path

DIR = Path("cassettes")


class Missing(Exception):
    pass


def key(request):
    canon = json.dumps(request, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canon.encode()).hexdigest()[:24]


def read(ticket_id, request):
    path = DIR / f"{key(request)}.json"
    if not path.exists():
        raise Missing(
            f"no cassette for {ticket_id} (expected {path}). "
            "The fixtures are missing or out of date: run ./run.sh record"
        )
    return json.loads(path.read_text(encoding="utf-8"))["response"]


def write(ticket_id, request, response):
    DIR.mkdir(exist_ok=True)
    k = key(request)
    doc = {"key": k, "ticket": ticket_id, "request": request, "response": response}
    (DIR / f"{k}.json").write_text(json.dumps(doc, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
