"""One JSON file per model call, named by a hash of the request."""

import hashlib
import json
from pathlib import Path

DIR = Path("cassettes")


class CassetteMissing(Exception):
    pass


def request_key(request):
    canonical = json.dumps(request, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()[:16]


def path_for(request):
    return DIR / f"{request_key(request)}.json"


def load(ticket_id, request):
    path = path_for(request)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise CassetteMissing(
            f"no cassette {path} for ticket {ticket_id}; run ./run.sh record to (re)create it"
        ) from None
    return json.loads(text)["response"]


def save(request, response):
    DIR.mkdir(exist_ok=True)
    body = {"request": request, "response": response}
    path_for(request).write_text(
        json.dumps(body, indent=2, sort_keys=True, ensure_ascii=False) + "\n", encoding="utf-8"
    )
