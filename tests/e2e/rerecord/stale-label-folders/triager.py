#!/usr/bin/env python3
"""Support-ticket triage with recorded model answers.

Usage:
    python3 triager.py record    talk to the model, save one fixture per ticket
    python3 triager.py replay    answer from the saved fixtures only (no network)

Fixtures are kept per label, cassettes/<label>/<ticket id>.json, so that
browsing the folder shows at a glance how the model sorted the tickets.
"""

import glob
import json
import os
import sys
import time
import urllib.error
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
TICKETS_FILE = os.path.join(HERE, "tickets.json")
FIXTURE_DIR = os.path.join(HERE, "cassettes")
ANSWERS_FILE = os.path.join(HERE, "out", "answers.json")

LABELS = ["billing", "bug", "account", "feature_request", "other"]
CALL_BUDGET = 40        # all model calls in one record run, retries included
TRIES_PER_TICKET = 2    # first try + one retry
HTTP_TIMEOUT = 20       # seconds per call
BACKOFF = 0.5           # seconds before the retry

INSTRUCTIONS = (
    "You are a support triage assistant. Read the customer's ticket and choose "
    "the single best label from this list: " + ", ".join(LABELS) + ".\n"
    "Answer with one JSON object and nothing else, shaped like "
    '{"label": "...", "justification": "..."}, where the justification is '
    "one short sentence."
)


class Abort(Exception):
    """Stops the run; the message is shown to the user."""


def say(msg):
    print(msg, file=sys.stderr, flush=True)


# ---------------------------------------------------------------- tickets

def load_tickets():
    with open(TICKETS_FILE, encoding="utf-8") as fh:
        return json.load(fh)


def messages_for(ticket):
    return [
        {"role": "system", "content": INSTRUCTIONS},
        {"role": "user", "content": "Ticket " + ticket["id"] + "\n\n" + ticket["body"]},
    ]


# ---------------------------------------------------------------- replies

def read_reply(content):
    """Return (label, justification) from the model's text, or None if unusable.

    Accepts a JSON object (optionally in a ``` fence) or the plain
    "label: ... / justification: ..." form.
    """
    text = (content or "").strip()
    if text.startswith("```"):
        text = text.strip("`").strip()
        if text[:4].lower() == "json":
            text = text[4:].strip()

    label, why = None, None
    try:
        data = json.loads(text)
    except ValueError:
        data = None
    if isinstance(data, dict):
        label, why = data.get("label"), data.get("justification")
    else:
        for line in text.splitlines():
            if ":" not in line:
                continue
            key, value = line.split(":", 1)
            key = key.strip(" *-_#").lower()
            if key == "label" and label is None:
                label = value
            elif key == "justification" and why is None:
                why = value

    if label is None:
        return None
    label = str(label).strip().strip("'\"`.,").lower().replace(" ", "_").replace("-", "_")
    if label not in LABELS:
        return None
    why = " ".join(str(why or "").split())
    return label, why


def content_of(response):
    return response["choices"][0]["message"]["content"]


# ---------------------------------------------------------------- fixtures

def fixture_path(label, ticket_id):
    return os.path.join(FIXTURE_DIR, label, ticket_id + ".json")


def save_fixture(ticket, label, request, response):
    path = fixture_path(label, ticket["id"])
    os.makedirs(os.path.dirname(path), exist_ok=True)
    blob = {"ticket": ticket["id"], "request": request, "response": response}
    with open(path, "w", encoding="utf-8", newline="\n") as fh:
        json.dump(blob, fh, indent=2, sort_keys=True, ensure_ascii=False)
        fh.write("\n")
    return path


def find_fixture(ticket_id):
    """The fixture for a ticket, whichever label folder it is in."""
    pattern = os.path.join(glob.escape(FIXTURE_DIR), "*", glob.escape(ticket_id) + ".json")
    hits = sorted(glob.glob(pattern))
    return hits[0] if hits else None


# ---------------------------------------------------------------- model

class Model:
    def __init__(self):
        self.url = os.environ.get("OPENAI_BASE_URL", "https://api.openai.com/v1").rstrip("/") + "/chat/completions"
        self.key = os.environ.get("OPENAI_API_KEY", "")
        self.name = os.environ.get("MODEL", "gpt-4o-mini")
        self.used = 0

    def chat(self, request):
        if self.used >= CALL_BUDGET:
            raise Abort("call budget of %d model calls used up, stopping" % CALL_BUDGET)
        self.used += 1
        body = dict(request, model=self.name)
        req = urllib.request.Request(
            self.url,
            data=json.dumps(body).encode("utf-8"),
            method="POST",
            headers={"Content-Type": "application/json", "Authorization": "Bearer " + self.key},
        )
        with urllib.request.urlopen(req, timeout=HTTP_TIMEOUT) as resp:
            return json.loads(resp.read().decode("utf-8"))


def ask(model, ticket):
    """One ticket against the live model: at most TRIES_PER_TICKET calls."""
    request = {"messages": messages_for(ticket), "temperature": 0}
    problem = "no attempt made"
    for attempt in range(1, TRIES_PER_TICKET + 1):
        if attempt > 1:
            time.sleep(BACKOFF)
        try:
            response = model.chat(request)
        except urllib.error.HTTPError as err:
            problem = "HTTP %d" % err.code
            if err.code < 500 and err.code != 429:
                break  # a 4xx other than rate limiting will not get better
            continue
        except (urllib.error.URLError, OSError, ValueError) as err:
            problem = "request failed: %s" % err
            continue
        try:
            parsed = read_reply(content_of(response))
        except (KeyError, IndexError, TypeError):
            parsed = None
        if parsed is None:
            problem = "reply had no usable label"
            continue
        label, why = parsed
        path = save_fixture(ticket, label, request, response)
        say("record: %s -> %s (%s)" % (ticket["id"], label, os.path.relpath(path, HERE)))
        return label, why
    raise Abort("ticket %s: model call failed after %d tries (%s)" % (ticket["id"], attempt, problem))


# ---------------------------------------------------------------- modes

def record(tickets):
    model = Model()
    rows = []
    for ticket in tickets:
        label, why = ask(model, ticket)
        rows.append((ticket["id"], label, why))
    say("record: %d tickets, %d model calls" % (len(rows), model.used))
    return rows


def replay(tickets):
    rows = []
    for ticket in tickets:
        path = find_fixture(ticket["id"])
        if path is None:
            raise Abort(
                "no fixture for ticket %s (expected cassettes/<label>/%s.json); "
                "run ./run.sh record first" % (ticket["id"], ticket["id"])
            )
        with open(path, encoding="utf-8") as fh:
            saved = json.load(fh)
        parsed = read_reply(content_of(saved["response"]))
        if parsed is None:
            raise Abort("fixture %s holds no usable answer; re-run ./run.sh record" % os.path.relpath(path, HERE))
        rows.append((ticket["id"], parsed[0], parsed[1]))
    return rows


def write_answers(rows):
    answers = [{"id": tid, "label": label, "justification": why} for tid, label, why in rows]
    os.makedirs(os.path.dirname(ANSWERS_FILE), exist_ok=True)
    scratch = ANSWERS_FILE + ".partial"
    with open(scratch, "w", encoding="utf-8", newline="\n") as fh:
        json.dump(answers, fh, indent=2, ensure_ascii=False)
        fh.write("\n")
    os.replace(scratch, ANSWERS_FILE)


def main(args):
    if len(args) != 1 or args[0] not in ("record", "replay"):
        say("usage: triager.py record|replay")
        return 2
    mode = args[0]
    try:
        tickets = load_tickets()
        rows = record(tickets) if mode == "record" else replay(tickets)
    except Abort as err:
        say("%s failed: %s" % (mode, err))
        return 1
    write_answers(rows)
    say("%s: wrote out/answers.json (%d answers)" % (mode, len(rows)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
