"""Content-addressed cassettes: one file per request, named by its hash.

The key is the first 16 hex characters of SHA-256 over the canonical JSON of
the request (sorted keys, no whitespace, ASCII escapes). The request is built
from the ticket alone, so the key of a ticket never changes between runs,
machines or re-recordings; only the prompt or the ticket text can change it.
"""

import hashlib
import json
import os

KEY_LENGTH = 16


class MissingCassette(Exception):
    pass


def canonical(request):
    return json.dumps(request, sort_keys=True, separators=(",", ":"), ensure_ascii=True)


def key_of(request):
    return hashlib.sha256(canonical(request).encode("ascii")).hexdigest()[:KEY_LENGTH]


class Shelf:
    """The cassettes/ folder."""

    def __init__(self, folder):
        self.folder = folder

    def path(self, key):
        return os.path.join(self.folder, key + ".json")

    def load(self, request, label_for_errors):
        key = key_of(request)
        path = self.path(key)
        try:
            with open(path, encoding="utf-8") as fh:
                tape = json.load(fh)
        except FileNotFoundError:
            raise MissingCassette(
                f"cassette cassettes/{key}.json for ticket {label_for_errors} is missing; "
                "run ./run.sh record to create it"
            ) from None
        if tape.get("request") != request:
            raise MissingCassette(
                f"cassette cassettes/{key}.json does not hold the request for ticket "
                f"{label_for_errors}; run ./run.sh record"
            )
        return key, tape["response"]

    def store(self, request, response):
        key = key_of(request)
        os.makedirs(self.folder, exist_ok=True)
        path = self.path(key)
        tmp = path + ".tmp"
        with open(tmp, "w", encoding="utf-8", newline="\n") as fh:
            json.dump({"key": key, "request": request, "response": response}, fh, indent=2, sort_keys=True)
            fh.write("\n")
        os.replace(tmp, path)
        return key
