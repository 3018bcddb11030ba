"""Support-ticket triage. `record` talks to the model, `replay` never does."""
from __future__ import annotations

import hashlib
import json
import logging
import os
import sys
import time
import urllib.request
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Protocol

PROJECT = Path(__file__).resolve().parent
CASSETTES = PROJECT / "cassettes"
OUT_DIR = PROJECT / "out"

LABELS = frozenset({"billing", "bug", "account", "feature_request", "other"})
MAX_MODEL_CALLS = 40
ATTEMPTS_PER_TICKET = 2

log = logging.getLogger("triage")


@dataclass(frozen=True)
class Answer:
    id: str
    label: str
    justification: str


class FixtureMissing(RuntimeError):
    pass


class RecordFailed(RuntimeError):
    pass


def build_request(ticket: dict) -> dict:
    system = (
        "Assign a triage label to the customer's support ticket. "
        f"Allowed labels: {', '.join(sorted(LABELS))}. "
        'Answer only with JSON: {"label": "<label>", "justification": "<one line>"}.'
    )
    return {
        "messages": [{"role": "system", "content": system}, {"role": "user", "content": ticket["body"]}],
        "temperature": 0,
    }


def request_key(request: dict) -> str:
    encoded = json.dumps(request, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    return hashlib.sha256(encoded).hexdigest()


def cassette_path(ticket_id: str, request: dict) -> Path:
    return CASSETTES / ticket_id / f"{request_key(request)[:24]}.json"


def interpret(content: str) -> tuple[str, str] | None:
    fields: dict = {}
    try:
        loaded = json.loads(content)
        if isinstance(loaded, dict):
            fields = loaded
    except json.JSONDecodeError:
        for line in content.splitlines():
            key, _, value = line.partition(":")
            fields.setdefault(key.strip().lower(), value)
    label = str(fields.get("label") or "").strip().lower()
    justification = " ".join(str(fields.get("justification") or "").split())
    if label in LABELS and justification:
        return label, justification
    return None


class Model(Protocol):
    def triage(self, ticket: dict) -> tuple[str, str]: ...


class Replayer:
    def triage(self, ticket: dict) -> tuple[str, str]:
        request = build_request(ticket)
        path = cassette_path(ticket["id"], request)
        if not path.is_file():
            raise FixtureMissing(f"{path.relative_to(PROJECT)} is missing; re-record with ./run.sh record")
        recorded = json.loads(path.read_text(encoding="utf-8"))
        result = interpret(recorded["response"]["choices"][0]["message"]["content"])
        if result is None:
            raise FixtureMissing(f"{path.relative_to(PROJECT)} does not hold a usable answer")
        return result


class Recorder:
    def __init__(self) -> None:
        base = os.environ.get("OPENAI_BASE_URL", "https://api.openai.com/v1")
        self.url = base.rstrip("/") + "/chat/completions"
        self.model = os.environ.get("MODEL", "gpt-4o-mini")
        self.auth = "Bearer " + os.environ.get("OPENAI_API_KEY", "")
        self.calls_made = 0

    def _send(self, request: dict) -> dict:
        if self.calls_made == MAX_MODEL_CALLS:
            raise RecordFailed(f"reached the limit of {MAX_MODEL_CALLS} model calls")
        self.calls_made += 1
        payload = json.dumps({"model": self.model, **request}).encode("utf-8")
        http_request = urllib.request.Request(
            self.url, data=payload, method="POST",
            headers={"Authorization": self.auth, "Content-Type": "application/json"},
        )
        started = time.monotonic()
        with urllib.request.urlopen(http_request, timeout=60) as response:
            body = json.loads(response.read())
        log.info("call %d took %.2fs", self.calls_made, time.monotonic() - started)
        return body

    def triage(self, ticket: dict) -> tuple[str, str]:
        request = build_request(ticket)
        for attempt in range(1, ATTEMPTS_PER_TICKET + 1):
            try:
                response = self._send(request)
                result = interpret(response["choices"][0]["message"]["content"])
            except RecordFailed:
                raise
            except Exception as exc:
                log.warning("%s attempt %d: %s", ticket["id"], attempt, exc)
                time.sleep(0.5 * attempt)
                continue
            if result is not None:
                path = cassette_path(ticket["id"], request)
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(json.dumps({"request": request, "response": response}, indent=2) + "\n", "utf-8")
                return result
            log.warning("%s attempt %d: reply had no valid label", ticket["id"], attempt)
        raise RecordFailed(f"{ticket['id']}: no usable answer in {ATTEMPTS_PER_TICKET} attempts")


def run(mode: str) -> int:
    OUT_DIR.mkdir(exist_ok=True)
    logging.basicConfig(
        level=logging.INFO,
        format="%(asctime)s %(levelname)s %(message)s",
        handlers=[logging.StreamHandler(), logging.FileHandler(OUT_DIR / "run.log", mode="w")],
    )
    model: Model = Recorder() if mode == "record" else Replayer()
    tickets = json.loads((PROJECT / "tickets.json").read_text(encoding="utf-8"))
    try:
        answers = [Answer(t["id"], *model.triage(t)) for t in tickets]
    except (FixtureMissing, RecordFailed) as exc:
        log.error("%s failed: %s", mode, exc)
        return 1
    text = json.dumps([asdict(a) for a in answers], indent=2, ensure_ascii=False) + "\n"
    (OUT_DIR / "answers.json").write_text(text, encoding="utf-8")
    log.info("%s: wrote %d answers", mode, len(answers))
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 2 or sys.argv[1] not in {"record", "replay"}:
        sys.exit("usage: triage.py record|replay")
    sys.exit(run(sys.argv[1]))
