"""vcrpy-style cassettes, one file per ticket: cassettes/<ticket id>.json

{"version": 1, "interactions": [{"request": {...}, "response": {...}}]}

The response body is kept as the exact text the server sent (like vcrpy does),
so replay parses the same bytes record saw. Only the last interaction of a
ticket (the one whose answer we used) is kept.
"""

import hashlib
import json
import os

CASSETTE_DIR = "cassettes"


class CassetteNotFound(Exception):
    pass


class CassetteMismatch(Exception):
    pass


def _path(ticket_id):
    return os.path.join(CASSETTE_DIR, ticket_id + ".json")


def body_hash(request_body):
    return hashlib.sha256(json.dumps(request_body["messages"], sort_keys=True).encode()).hexdigest()


def save(ticket_id, url, request_body, status, reason, content_type, raw_text):
    os.makedirs(CASSETTE_DIR, exist_ok=True)
    doc = {
        "version": 1,
        "interactions": [
            {
                "request": {
                    "method": "POST",
                    "uri": url,
                    "body": json.dumps(request_body, sort_keys=True),
                    "messages_sha256": body_hash(request_body),
                },
                "response": {
                    "status": {"code": status, "message": reason},
                    "headers": {"Content-Type": [content_type]},
                    "body": {"string": raw_text},
                },
            }
        ],
    }
    tmp = _path(ticket_id) + ".partial"
    with open(tmp, "w", encoding="utf-8") as fh:
        json.dump(doc, fh, indent=2, sort_keys=True)
        fh.write("\n")
    os.replace(tmp, _path(ticket_id))


def load(ticket_id, request_body):
    """The recorded response JSON for this ticket; the prompt must match what was recorded."""
    path = _path(ticket_id)
    if not os.path.exists(path):
        raise CassetteNotFound(
            f"cassette {path} is missing (ticket {ticket_id}); run `./run.sh record` to create it"
        )
    with open(path, encoding="utf-8") as fh:
        doc = json.load(fh)
    interaction = doc["interactions"][-1]
    if interaction["request"]["messages_sha256"] != body_hash(request_body):
        raise CassetteMismatch(
            f"cassette {path} was recorded for a different prompt; run `./run.sh record` again"
        )
    return json.loads(interaction["response"]["body"]["string"])
