"""Ticket triage behind a record/replay boundary.

record: call the model, store every reply under cassettes/, write out/answers.json.
replay: read the same cassettes back, never touch the network.
"""

import hashlib
import json
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent
TICKETS = ROOT / "tickets.json"
CASSETTES = ROOT / "cassettes"
ANSWERS = ROOT / "out" / "answers.json"

LABELS = ["billing", "bug", "account", "feature_request", "other"]
CALL_BUDGET = 40
SYSTEM_PROMPT = (
    "You triage customer support tickets. Pick exactly one label from: "
    + ", ".join(LABELS)
    + ". Reply with a JSON object only: "
    '{"label": "<label>", "justification": "<one sentence>"}'
)


class MissingCassette(Exception):
    pass


class BadReply(Exception):
    pass


def build_request(ticket):
    # The model id is deliberately not part of this: changing $MODEL should not
    # orphan the cassettes.
    return {
        "messages": [
            {"role": "system", "content": SYSTEM_PROMPT},
            {"role": "user", "content": ticket["body"]},
        ],
        "temperature": 0,
    }


def request_key(request):
    canonical = json.dumps(request, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def cassette_path(ticket_id, key):
    return CASSETTES / f"{ticket_id}-{key[:12]}.json"


def parse_reply(content):
    """Accept {"label": .., "justification": ..} or 'label: ..' / 'justification: ..' lines."""
    try:
        data = json.loads(content)
    except ValueError:
        data = {}
        for line in content.splitlines():
            name, sep, value = line.partition(":")
            if sep:
                data[name.strip().lower()] = value.strip()
    if not isinstance(data, dict):
        raise BadReply(f"unexpected reply: {content!r}")
    label = str(data.get("label", "")).strip().lower()
    justification = " ".join(str(data.get("justification", "")).split())
    if label not in LABELS or not justification:
        raise BadReply(f"unusable reply: {content!r}")
    return label, justification


class Replayer:
    """Answers from cassettes only."""

    def answer(self, ticket):
        request = build_request(ticket)
        path = cassette_path(ticket["id"], request_key(request))
        if not path.exists():
            raise MissingCassette(f"missing cassette {path.relative_to(ROOT)} for {ticket['id']}; run ./run.sh record")
        saved = json.loads(path.read_text(encoding="utf-8"))
        return parse_reply(saved["response"]["choices"][0]["message"]["content"])


class Recorder:
    """Calls the model, at most CALL_BUDGET times per run, and writes a cassette per usable reply."""

    def __init__(self):
        self.base_url = os.environ.get("OPENAI_BASE_URL", "https://api.openai.com/v1").rstrip("/")
        self.api_key = os.environ.get("OPENAI_API_KEY", "")
        self.model = os.environ.get("MODEL", "gpt-4o-mini")
        self.calls = 0

    def _post(self, request):
        import urllib.request  # only record needs it

        self.calls += 1
        body = json.dumps({"model": self.model, **request}).encode("utf-8")
        req = urllib.request.Request(
            f"{self.base_url}/chat/completions",
            data=body,
            headers={"Content-Type": "application/json", "Authorization": f"Bearer {self.api_key}"},
        )
        with urllib.request.urlopen(req, timeout=60) as resp:
            return json.loads(resp.read().decode("utf-8"))

    def answer(self, ticket):
        request = build_request(ticket)
        last_error = None
        for attempt in range(2):
            if self.calls >= CALL_BUDGET:
                raise RuntimeError(f"call budget of {CALL_BUDGET} used up")
            if attempt:
                time.sleep(0.5)
            try:
                response = self._post(request)
                result = parse_reply(response["choices"][0]["message"]["content"])
            except Exception as exc:  # HTTP error, timeout, bad JSON, bad label
                last_error = exc
                print(f"{ticket['id']}: attempt {attempt + 1} failed: {exc}", file=sys.stderr)
                continue
            path = cassette_path(ticket["id"], request_key(request))
            CASSETTES.mkdir(exist_ok=True)
            path.write_text(
                json.dumps({"request": request, "response": response}, indent=2, ensure_ascii=False) + "\n",
                encoding="utf-8",
            )
            return result
        raise RuntimeError(f"{ticket['id']}: no usable answer after 2 attempts ({last_error})")


def main(argv):
    if len(argv) != 2 or argv[1] not in ("record", "replay"):
        print("usage: triage.py record|replay", file=sys.stderr)
        return 2
    tickets = json.loads(TICKETS.read_text(encoding="utf-8"))
    client = Recorder() if argv[1] == "record" else Replayer()

    answers = []
    try:
        for ticket in tickets:
            label, justification = client.answer(ticket)
            answers.append({"id": ticket["id"], "label": label, "justification": justification})
    except (MissingCassette, RuntimeError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1

    ANSWERS.parent.mkdir(exist_ok=True)
    ANSWERS.write_text(json.dumps(answers, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {len(answers)} answers to out/answers.json", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
