"""Triage support tickets with a language model, behind record/replay.

    python3 classify.py record   # live model calls, refreshes cassettes/
    python3 classify.py replay   # cassettes/ only, never the network
"""

import json
import os
import sys
import time
import urllib.error
import urllib.request
from dataclasses import dataclass

from cassette import MissingCassette, Shelf

ROOT = os.path.dirname(os.path.abspath(__file__))
LABELS = ("billing", "bug", "account", "feature_request", "other")

MAX_CALLS_PER_RUN = 40
ATTEMPTS_PER_TICKET = 2
CALL_TIMEOUT_S = 25
RETRY_PAUSE_S = 0.3

PROMPT = """Classify the support ticket below into exactly one of these labels:
billing, bug, account, feature_request, other.

Respond with only a JSON object: {"label": "<label>", "justification": "<one sentence>"}."""


class RunFailed(Exception):
    pass


@dataclass
class Verdict:
    ticket: str
    label: str
    justification: str
    fixture: str

    def row(self):
        # Field order is fixed here; it is part of the output's bytes.
        return {"id": self.ticket, "label": self.label, "justification": self.justification, "fixture": self.fixture}


def request_for(ticket):
    """Everything that defines the question, and nothing about who answers it or when."""
    return {
        "messages": [
            {"role": "system", "content": PROMPT},
            {"role": "user", "content": f"[{ticket['id']}] {ticket['body']}"},
        ],
        "temperature": 0,
    }


def interpret(reply_text):
    """(label, justification) from a JSON reply or a `label:` / `justification:` reply; None if neither."""
    text = (reply_text or "").strip()
    if text.startswith("```"):
        text = text.strip("`").removeprefix("json").strip()
    fields = {}
    try:
        parsed = json.loads(text)
        if isinstance(parsed, dict):
            fields = parsed
    except ValueError:
        for line in text.splitlines():
            name, colon, value = line.partition(":")
            name = name.strip().strip("*").strip().lower()
            if colon and name in ("label", "justification"):
                fields.setdefault(name, value)
    label = str(fields.get("label") or "").strip().strip("\"'.`").lower().replace("-", "_").replace(" ", "_")
    if label not in LABELS:
        return None
    justification = " ".join(str(fields.get("justification") or "").split())
    return label, justification


def reply_text(response):
    try:
        return response["choices"][0]["message"]["content"]
    except (KeyError, IndexError, TypeError):
        return None


class Endpoint:
    """The live chat-completions API; used by `record` only."""

    def __init__(self, log):
        base = os.environ.get("OPENAI_BASE_URL") or "https://api.openai.com/v1"
        self.url = base.rstrip("/") + "/chat/completions"
        self.token = os.environ.get("OPENAI_API_KEY", "")
        self.model = os.environ.get("MODEL") or "gpt-4o-mini"
        self.calls = 0
        self.log = log

    def complete(self, request):
        if self.calls >= MAX_CALLS_PER_RUN:
            raise RunFailed(f"reached the limit of {MAX_CALLS_PER_RUN} model calls; stopping")
        self.calls += 1
        payload = json.dumps({"model": self.model, **request}).encode("utf-8")
        http_request = urllib.request.Request(
            self.url,
            data=payload,
            headers={"Authorization": f"Bearer {self.token}", "Content-Type": "application/json"},
        )
        started = time.monotonic()
        with urllib.request.urlopen(http_request, timeout=CALL_TIMEOUT_S) as resp:
            body = json.load(resp)
        self.log({"call": self.calls, "seconds": round(time.monotonic() - started, 3),
                  "model": body.get("model"), "usage": body.get("usage")})
        return body


def record_one(endpoint, shelf, ticket):
    request = request_for(ticket)
    why_not = "no attempt"
    for attempt in range(ATTEMPTS_PER_TICKET):
        if attempt:
            time.sleep(RETRY_PAUSE_S)
        try:
            response = endpoint.complete(request)
        except urllib.error.HTTPError as exc:
            why_not = f"HTTP {exc.code}"
            if 400 <= exc.code < 500 and exc.code not in (408, 429):
                break
            continue
        except (urllib.error.URLError, OSError, ValueError) as exc:
            why_not = f"{type(exc).__name__}: {exc}"
            continue
        answer = interpret(reply_text(response))
        if answer is None:
            why_not = "the reply had no valid label"
            continue
        key = shelf.store(request, response)
        return Verdict(ticket["id"], answer[0], answer[1], key)
    raise RunFailed(f"ticket {ticket['id']}: giving up after {attempt + 1} call(s), last problem: {why_not}")


def replay_one(shelf, ticket):
    request = request_for(ticket)
    key, response = shelf.load(request, ticket["id"])
    answer = interpret(reply_text(response))
    if answer is None:
        raise RunFailed(f"cassettes/{key}.json (ticket {ticket['id']}) has no usable answer; re-record it")
    return Verdict(ticket["id"], answer[0], answer[1], key)


def write_answers(verdicts):
    out_dir = os.path.join(ROOT, "out")
    os.makedirs(out_dir, exist_ok=True)
    target = os.path.join(out_dir, "answers.json")
    text = json.dumps([v.row() for v in verdicts], indent=2, ensure_ascii=False) + "\n"
    with open(target + ".tmp", "w", encoding="utf-8", newline="\n") as fh:
        fh.write(text)
    os.replace(target + ".tmp", target)


def record_logger():
    """Volatile details of a record run (timings, tokens, model) go to out/record.log."""
    path = os.path.join(ROOT, "out", "record.log")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(json.dumps({"started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}) + "\n")

    def log(entry):
        with open(path, "a", encoding="utf-8") as fh:
            fh.write(json.dumps(entry, sort_keys=True) + "\n")

    return log


def run(mode):
    with open(os.path.join(ROOT, "tickets.json"), encoding="utf-8") as fh:
        tickets = json.load(fh)
    shelf = Shelf(os.path.join(ROOT, "cassettes"))
    if mode == "record":
        endpoint = Endpoint(record_logger())
        verdicts = [record_one(endpoint, shelf, t) for t in tickets]
        print(f"record: {endpoint.calls} model calls for {len(tickets)} tickets", file=sys.stderr)
    else:
        verdicts = [replay_one(shelf, t) for t in tickets]
    write_answers(verdicts)
    print(f"{mode}: out/answers.json has {len(verdicts)} answers", file=sys.stderr)


def main():
    if len(sys.argv) != 2 or sys.argv[1] not in ("record", "replay"):
        print("usage: classify.py record|replay", file=sys.stderr)
        return 2
    try:
        run(sys.argv[1])
    except (RunFailed, MissingCassette) as exc:
        print(f"{sys.argv[1]}: error: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
