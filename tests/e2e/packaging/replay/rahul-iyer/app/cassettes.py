"""cassettes/<ticket>-<sha1(prompt)[:10]>.json holds the raw response body, byte for byte."""

import hashlib
import json
import os

CASSETTES = "cassettes"


class MissingCassette(Exception):
    pass


def name_for(ticket_id, prompt):
    digest = hashlib.sha1(json.dumps(prompt, sort_keys=True).encode("utf-8")).hexdigest()[:10]
    return os.path.join(CASSETTES, "%s-%s.json" % (ticket_id, digest))


def store(ticket_id, prompt, raw_body):
    os.makedirs(CASSETTES, exist_ok=True)
    for old in os.listdir(CASSETTES):
        if old.startswith(ticket_id + "-"):
            os.remove(os.path.join(CASSETTES, old))
    with open(name_for(ticket_id, prompt), "wb") as fh:
        fh.write(raw_body)


def fetch(ticket_id, prompt):
    path = name_for(ticket_id, prompt)
    try:
        with open(path, "rb") as fh:
            return json.loads(fh.read())
    except FileNotFoundError:
        raise MissingCassette(path) from None
