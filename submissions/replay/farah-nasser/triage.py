#!/usr/bin/env python3
"""Triage support tickets with an LLM, behind a record/replay boundary.

record: one chat-completions call per ticket, saved under cassettes/
replay: rebuilds out/answers.json from cassettes/ only (no network)
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

LABELS = ("billing", "bug", "account", "feature_request", "other")

CALL_CAP = 40
RETRY_BACKOFF = (0.2, 0.4)
HTTP_TIMEOUT = 15

SYSTEM = (
    "You are a support triage assistant. Classify the customer's ticket into one of: "
    "billing, bug, account, feature_request, other.\n"
    'Respond with JSON only: {"label": "<label>", "justification": "<one sentence>"}'
)

ROOT = Path(__file__).resolve().parent
CASSETTES = ROOT / "cassettes"
OUT = ROOT / "out"


class Abort(Exception):
    """Stop the run; the message is shown to the user."""


@dataclass(frozen=True)
class Ticket:
    id: str
    body: str

    def request(self) -> dict:
        return {
            "messages": [
                {"role": "system", "content": SYSTEM},
                {"role": "user", "content": self.body},
            ],
            "temperature": 0,
        }

    def cassette(self) -> Path:
        raw = json.dumps(self.request(), sort_keys=True, ensure_ascii=False)
        return CASSETTES / f"{self.id}-{hashlib.sha256(raw.encode('utf-8')).hexdigest()[:8]}.json"


def parse_content(content: str) -> tuple[str, str]:
    content = content.strip()
    label = justification = ""
    try:
        data = json.loads(content)
    except json.JSONDecodeError:
        data = None
    if isinstance(data, dict):
        label = str(data.get("label", ""))
        justification = str(data.get("justification", ""))
    else:
        for line in content.splitlines():
            field, sep, value = line.partition(":")
            field = field.strip().lower()
            if sep and field == "label" and not label:
                label = value.strip()
            elif sep and field == "justification" and not justification:
                justification = value.strip()
    label = label.strip().strip("\"'").lower().replace("-", "_").replace(" ", "_")
    if label not in LABELS:
        label = "other"
    return label, " ".join(justification.split())


def log(**fields) -> None:
    OUT.mkdir(exist_ok=True)
    fields["at"] = time.strftime("%Y-%m-%d %H:%M:%S%z")
    with (OUT / "run.log").open("a", encoding="utf-8") as fh:
        fh.write(json.dumps(fields) + "\n")


class Recorder:
    def __init__(self) -> None:
        self.url = os.environ.get("OPENAI_BASE_URL", "https://api.openai.com/v1").rstrip("/") + "/chat/completions"
        self.key = os.environ.get("OPENAI_API_KEY", "")
        self.model = os.environ.get("MODEL", "gpt-4o-mini")
        self.calls = 0

    def _call(self, payload: dict) -> dict:
        if self.calls == CALL_CAP:
            raise Abort(f"reached the cap of {CALL_CAP} model calls; not sending more")
        self.calls += 1
        req = urllib.request.Request(
            self.url,
            data=json.dumps(payload).encode("utf-8"),
            headers={"Authorization": f"Bearer {self.key}", "Content-Type": "application/json"},
            method="POST",
        )
        with urllib.request.urlopen(req, timeout=HTTP_TIMEOUT) as resp:
            return json.loads(resp.read().decode("utf-8"))

    def answer(self, ticket: Ticket) -> str:
        request = ticket.request()
        payload = {"model": self.model, **request}
        for attempt, backoff in enumerate((*RETRY_BACKOFF, None), start=1):
            start = time.perf_counter()
            try:
                response = self._call(payload)
            except urllib.error.HTTPError as e:
                if e.code < 500:
                    raise Abort(f"{ticket.id}: HTTP {e.code}, not retrying") from None
                why = f"HTTP {e.code}"
            except (urllib.error.URLError, ConnectionError, TimeoutError) as e:
                why = f"connection problem: {getattr(e, 'reason', e)}"
            else:
                log(ticket=ticket.id, attempt=attempt, latency_s=round(time.perf_counter() - start, 3),
                    model=response.get("model"), usage=response.get("usage"))
                CASSETTES.mkdir(exist_ok=True)
                with ticket.cassette().open("w", encoding="utf-8") as fh:
                    json.dump({"request": request, "response": response}, fh, indent=2, ensure_ascii=False)
                    fh.write("\n")
                return response["choices"][0]["message"]["content"]
            log(ticket=ticket.id, attempt=attempt, error=why)
            if backoff is None:
                raise Abort(f"{ticket.id}: model unavailable ({why}) after {attempt} attempts")
            time.sleep(backoff)
        raise AssertionError("unreachable")


def replay_answer(ticket: Ticket) -> str:
    path = ticket.cassette()
    if not path.exists():
        raise Abort(
            f"missing cassette {path.relative_to(ROOT)} for ticket {ticket.id} "
            "-- run ./run.sh record to (re)create it"
        )
    with path.open(encoding="utf-8") as fh:
        return json.load(fh)["response"]["choices"][0]["message"]["content"]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--mode", choices=["replay", "record"], required=True)
    mode = ap.parse_args().mode

    with (ROOT / "tickets.json").open(encoding="utf-8") as fh:
        tickets = [Ticket(t["id"], t["body"]) for t in json.load(fh)]

    get_answer = Recorder().answer if mode == "record" else replay_answer
    answers = []
    try:
        for ticket in tickets:
            label, justification = parse_content(get_answer(ticket))
            answers.append({"id": ticket.id, "label": label, "justification": justification})
    except Abort as e:
        print(f"error ({mode}): {e}", file=sys.stderr)
        return 1

    OUT.mkdir(exist_ok=True)
    tmp = OUT / "answers.json.new"
    tmp.write_text(json.dumps(answers, indent=2, sort_keys=True, ensure_ascii=False) + "\n", encoding="utf-8")
    tmp.replace(OUT / "answers.json")
    print(f"{mode}: {len(answers)} tickets -> out/answers.json")
    return 0


if __name__ == "__main__":
    sys.exit(main())
