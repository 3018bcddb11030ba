"""Ticket triage behind a record/replay boundary.

    python3 triage.py record   # calls the model, writes cassettes/ + out/answers.json
    python3 triage.py replay   # offline, reads cassettes/ only

Uses PyYAML for the run summary.
"""

import hashlib
import json
import os
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import yaml

TICKETS = Path("tickets.json")
CASSETTES = Path("cassettes")
OUT = Path("out")

LABELS = ("billing", "bug", "account", "feature_request", "other")
MAX_CALLS = 40            # hard budget for one record run, retries included
RETRY_DELAYS = (0.2, 0.4)  # two retries, then give up
TIMEOUT_S = 15

SYSTEM_PROMPT = (
    "You triage customer support tickets. Pick exactly one label from: "
    + ", ".join(LABELS)
    + ". Reply with a JSON object only, no prose: "
    '{"label": "<one label>", "justification": "<one short sentence>"}'
)


class TriageError(Exception):
    """Anything that should stop the run with a readable message."""


class CassetteMissing(TriageError):
    pass


def build_request(ticket):
    # The model id is deliberately not part of the request we hash: replay
    # must find the cassette without knowing which model recorded it.
    return {
        "messages": [
            {"role": "system", "content": SYSTEM_PROMPT},
            {"role": "user", "content": f"Ticket {ticket['id']}:\n\n{ticket['body']}"},
        ],
        "temperature": 0,
    }


def request_key(request):
    blob = json.dumps(request, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()[:12]


def cassette_path(ticket, request):
    return CASSETTES / f"{ticket['id']}_{request_key(request)}.json"


# --- parsing the model's answer -------------------------------------------

def normalise_label(raw):
    label = str(raw or "").strip().strip("\"'`.").lower().replace("-", "_").replace(" ", "_")
    return label if label in LABELS else "other"


def parse_reply(text):
    """JSON object first; fall back to `label: X` / `justification: Y` lines."""
    text = (text or "").strip()
    if text.startswith("```"):
        text = text.strip("`")
        if text.lower().startswith("json"):
            text = text[4:]
        text = text.strip()
    try:
        obj = json.loads(text)
    except ValueError:
        obj = None
    if isinstance(obj, dict):
        label, why = obj.get("label"), obj.get("justification")
    else:
        label = why = None
        for line in text.splitlines():
            key, sep, value = line.partition(":")
            if not sep:
                continue
            key = key.strip().strip("*-# ").lower()
            if key == "label" and label is None:
                label = value.strip()
            elif key == "justification" and why is None:
                why = value.strip()
    why = " ".join(str(why or "").split())  # one line, always
    return normalise_label(label), why


# --- the two clients ------------------------------------------------------

class ReplayClient:
    """Never opens a socket. No cassette, no answer."""

    def complete(self, ticket, request):
        path = cassette_path(ticket, request)
        if not path.is_file():
            raise CassetteMissing(
                f"missing cassette {path} for ticket {ticket['id']}; "
                "run ./run.sh record to regenerate fixtures"
            )
        cassette = json.loads(path.read_text(encoding="utf-8"))
        return cassette["response"]["choices"][0]["message"]["content"]


class LiveClient:
    def __init__(self, log):
        self.base_url = os.environ.get("OPENAI_BASE_URL", "https://api.openai.com/v1").rstrip("/")
        self.api_key = os.environ.get("OPENAI_API_KEY", "")
        self.model = os.environ.get("MODEL", "gpt-4o-mini")
        self.calls = 0
        self.log = log

    def _post(self, payload):
        if self.calls >= MAX_CALLS:
            raise TriageError(f"call budget exhausted ({MAX_CALLS} calls); stopping record")
        self.calls += 1
        req = urllib.request.Request(
            self.base_url + "/chat/completions",
            data=json.dumps(payload).encode("utf-8"),
            headers={
                "Content-Type": "application/json",
                "Authorization": f"Bearer {self.api_key}",
            },
            method="POST",
        )
        with urllib.request.urlopen(req, timeout=TIMEOUT_S) as resp:
            return json.loads(resp.read().decode("utf-8"))

    def complete(self, ticket, request):
        payload = {"model": self.model, **request}
        for attempt in range(len(RETRY_DELAYS) + 1):
            started = time.monotonic()
            try:
                body = self._post(payload)
                break
            except urllib.error.HTTPError as exc:
                transient = exc.code >= 500 or exc.code == 429
                err = f"HTTP {exc.code}"
            except (urllib.error.URLError, TimeoutError, ConnectionError) as exc:
                transient, err = True, f"connection error: {exc}"
            self.log(event="call_failed", ticket=ticket["id"], attempt=attempt + 1, error=err)
            if not transient or attempt == len(RETRY_DELAYS):
                raise TriageError(f"model call for ticket {ticket['id']} failed ({err}); giving up")
            time.sleep(RETRY_DELAYS[attempt])

        self.log(
            event="call",
            ticket=ticket["id"],
            attempt=attempt + 1,
            latency_ms=round((time.monotonic() - started) * 1000),
            model=body.get("model"),
            usage=body.get("usage"),
        )
        CASSETTES.mkdir(exist_ok=True)
        cassette = {"request": request, "response": body}
        cassette_path(ticket, request).write_text(
            json.dumps(cassette, indent=2, sort_keys=True, ensure_ascii=False) + "\n",
            encoding="utf-8",
        )
        return body["choices"][0]["message"]["content"]


# --- main -------------------------------------------------------------------

def make_logger():
    def log(**fields):
        OUT.mkdir(exist_ok=True)
        fields = {"ts": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), **fields}
        with open(OUT / "run.log", "a", encoding="utf-8") as fh:
            fh.write(json.dumps(fields, sort_keys=True) + "\n")
    return log


def main(argv):
    if len(argv) != 2 or argv[1] not in ("replay", "record"):
        print("usage: triage.py replay|record", file=sys.stderr)
        return 2
    mode = argv[1]
    log = make_logger()
    tickets = json.loads(TICKETS.read_text(encoding="utf-8"))
    client = LiveClient(log) if mode == "record" else ReplayClient()

    rows = []
    try:
        for ticket in tickets:  # input order is the output order
            text = client.complete(ticket, build_request(ticket))
            label, why = parse_reply(text)
            rows.append({"id": ticket["id"], "label": label, "justification": why})
    except TriageError as exc:
        print(f"{mode}: {exc}", file=sys.stderr)
        log(event="aborted", mode=mode, error=str(exc))
        return 1

    # Write to a temp file and rename, so a failed run never leaves a half file.
    OUT.mkdir(exist_ok=True)
    tmp = OUT / "answers.json.tmp"
    tmp.write_text(
        json.dumps(rows, indent=2, sort_keys=True, ensure_ascii=False) + "\n", encoding="utf-8"
    )
    os.replace(tmp, OUT / "answers.json")
    log(event="done", mode=mode, tickets=len(rows), calls=getattr(client, "calls", 0))
    summary = yaml.safe_dump({"mode": mode, "tickets": len(rows)}, sort_keys=True)
    print(f"{mode}: wrote out/answers.json ({len(rows)} tickets)")
    print(summary.strip().replace("\n", ", "))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
