"""Ticket triage. The model call is plain `requests`; vcrpy records it (record) or plays
it back (replay), one YAML cassette per ticket in cassettes/."""

import json
import os
import sys
import time
from pathlib import Path

import requests
import vcr
from vcr.errors import CannotOverwriteExistingCassetteException

LABELS = ["billing", "bug", "account", "feature_request", "other"]
MAX_CALLS = 40
RETRY_WAITS = [0.3, 0.6]
CASSETTES = Path("cassettes")
OUT = Path("out")

PROMPT = (
    "Triage this customer support ticket. Choose exactly one label from: "
    + ", ".join(LABELS)
    + '. Answer with only a JSON object like {"label": "...", "justification": "..."}, '
    "where the justification is one short sentence.\n\nTicket:\n"
)


def same_messages(r1, r2):
    """Match on the prompt only, not on the model id or the host."""
    assert json.loads(r1.body)["messages"] == json.loads(r2.body)["messages"]


def keep_successes(response):
    """A 503 that was retried shouldn't end up on tape."""
    return response if 200 <= response["status"]["code"] < 300 else None


tape = vcr.VCR(
    cassette_library_dir=str(CASSETTES),
    serializer="yaml",
    match_on=["method", "path", "messages"],
    filter_headers=["authorization", "openai-organization", "openai-project", "cookie", "set-cookie"],
    before_record_response=keep_successes,
    decode_compressed_response=True,
)
tape.register_matcher("messages", same_messages)


class Stop(Exception):
    pass


class Model:
    def __init__(self):
        self.url = os.environ.get("OPENAI_BASE_URL", "https://api.openai.com/v1").rstrip("/") + "/chat/completions"
        self.key = os.environ.get("OPENAI_API_KEY", "")
        self.model = os.environ.get("MODEL", "gpt-4o-mini")
        self.session = requests.Session()
        self.calls = 0

    def ask(self, ticket):
        payload = {
            "model": self.model,
            "temperature": 0,
            "messages": [{"role": "user", "content": PROMPT + ticket["body"]}],
        }
        headers = {"Authorization": f"Bearer {self.key}"}
        for attempt, wait in enumerate(RETRY_WAITS + [None], start=1):
            if self.calls >= MAX_CALLS:
                raise Stop(f"hit the limit of {MAX_CALLS} model calls")
            self.calls += 1
            try:
                resp = self.session.post(self.url, json=payload, headers=headers, timeout=20)
            except (requests.ConnectionError, requests.Timeout) as exc:
                problem = f"{type(exc).__name__}"
            else:
                if resp.ok:
                    return resp.json()
                if resp.status_code != 429 and resp.status_code < 500:
                    raise Stop(f"{ticket['id']}: HTTP {resp.status_code}: {resp.text[:200]}")
                problem = f"HTTP {resp.status_code}"
            if wait is None:
                raise Stop(f"{ticket['id']}: giving up after {attempt} attempts ({problem})")
            time.sleep(wait)


def parse(content):
    text = (content or "").strip().removeprefix("```json").removeprefix("```").removesuffix("```").strip()
    label = justification = ""
    try:
        data = json.loads(text)
        label, justification = data.get("label", ""), data.get("justification", "")
    except (ValueError, AttributeError):
        for line in text.splitlines():
            key, _, value = line.partition(":")
            key = key.strip().lower()
            if key == "label" and not label:
                label = value
            elif key == "justification" and not justification:
                justification = value
    label = str(label).strip().strip("'\"").lower().replace(" ", "_").replace("-", "_")
    return (label if label in LABELS else "other"), " ".join(str(justification).split())


def run(mode):
    tickets = json.loads(Path("tickets.json").read_text(encoding="utf-8"))
    model = Model()
    record_mode = "all" if mode == "record" else "none"
    rows, log = [], []
    for ticket in tickets:
        cassette = CASSETTES / f"{ticket['id']}.yaml"
        if mode == "replay" and not cassette.is_file():
            raise Stop(f"cassette {cassette} is missing (ticket {ticket['id']}); run ./run.sh record")
        started = time.monotonic()
        try:
            with tape.use_cassette(cassette.name, record_mode=record_mode):
                reply = model.ask(ticket)
        except CannotOverwriteExistingCassetteException:
            raise Stop(
                f"cassette {cassette} does not match this request (prompt changed?); run ./run.sh record"
            ) from None
        label, justification = parse(reply["choices"][0]["message"]["content"])
        rows.append({"id": ticket["id"], "label": label, "justification": justification})
        log.append({"ticket": ticket["id"], "seconds": round(time.monotonic() - started, 3),
                    "model": reply.get("model"), "usage": reply.get("usage")})
    return rows, log, model.calls


def main():
    mode = sys.argv[1] if len(sys.argv) == 2 else ""
    if mode not in ("record", "replay"):
        print("usage: python3 triage.py record|replay", file=sys.stderr)
        return 2
    OUT.mkdir(exist_ok=True)
    try:
        rows, log, calls = run(mode)
    except Stop as exc:
        print(f"{mode}: {exc}", file=sys.stderr)
        return 1
    tmp = OUT / "answers.json.tmp"
    tmp.write_text(json.dumps(rows, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    tmp.replace(OUT / "answers.json")
    with open(OUT / "run.log", "a", encoding="utf-8") as fh:
        stamp = time.strftime("%Y-%m-%d %H:%M:%S %z")
        fh.write(json.dumps({"at": stamp, "mode": mode, "http_calls": calls, "tickets": log}) + "\n")
    print(f"{mode}: {len(rows)} tickets -> out/answers.json" + (f" ({calls} HTTP calls)" if mode == "record" else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
