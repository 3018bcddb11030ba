"""Cassette store: one JSON file per model call, named by a hash of the request."""

import hashlib
import json
from pathlib import Path

ROOT = Path("cassettes")


class MissingCassette(LookupError):
    def __init__(self, path, ticket_id):
        super().__init__(
            f"missing fixture {path} (ticket {ticket_id}). "
            "Replay never calls the model; run `./run.sh record` to regenerate cassettes."
        )


def digest(request):
    canonical = json.dumps(request, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def path_for(request):
    return ROOT / f"{digest(request)[:16]}.json"


def load(request, ticket_id):
    path = path_for(request)
    try:
        with open(path, encoding="utf-8") as fh:
            return json.load(fh)["response"]
    except FileNotFoundError:
        raise MissingCassette(path, ticket_id) from None


def save(request, response):
    ROOT.mkdir(exist_ok=True)
    doc = {"request_sha256": digest(request), "request": request, "response": response}
    with open(path_for(request), "w", encoding="utf-8") as fh:
        json.dump(doc, fh, indent=2, ensure_ascii=False)
        fh.write("\n")
