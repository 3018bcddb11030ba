"""Support-ticket triage with an LLM behind a record/replay boundary.

    python triage.py record   # calls $OPENAI_BASE_URL, writes cassettes/ + out/answers.json
    python triage.py replay   # reads cassettes/ only, writes out/answers.json

Normally run through nox (see noxfile.py / run.sh).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
TICKETS = HERE / "tickets.json"
CASSETTES = HERE / "cassettes"
OUT = HERE / "out"

LABELS = ("billing", "bug", "account", "feature_request", "other")
MAX_CALLS = 40

SYSTEM_PROMPT = f"""You are a helpdesk triage assistant.
Choose the single best label for the ticket from this list: {", ".join(LABELS)}.
Answer with a JSON object with the keys "label" and "justification" (one sentence). No other text."""


class MissingCassette(Exception):
    pass


class RecordAborted(Exception):
    pass


# ---------------------------------------------------------------- prompt / parsing


def messages_for(ticket: dict) -> list[dict]:
    return [
        {"role": "system", "content": SYSTEM_PROMPT},
        {"role": "user", "content": ticket["body"]},
    ]


def prompt_hash(messages: list[dict]) -> str:
    return hashlib.sha1(json.dumps(messages, sort_keys=True).encode("utf-8")).hexdigest()


def parse_answer(text: str | None) -> tuple[str, str] | None:
    if not text:
        return None
    text = text.strip()
    if text.startswith("```"):
        text = re.sub(r"^```[a-z]*\n?|```$", "", text).strip()
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        data = dict(
            (m.group(1).lower(), m.group(2).strip())
            for m in re.finditer(r"(?im)^\s*(label|justification)\s*:\s*(.*)$", text)
        )
    if not isinstance(data, dict):
        return None
    label = str(data.get("label", "")).strip().lower().replace(" ", "_").replace("-", "_")
    if label not in LABELS:
        return None
    return label, " ".join(str(data.get("justification", "")).split())


def reply_content(response: dict) -> str | None:
    try:
        return response["choices"][0]["message"]["content"]
    except (KeyError, IndexError, TypeError):
        return None


# ---------------------------------------------------------------- cassettes


def cassette_path(ticket_id: str) -> Path:
    return CASSETTES / f"{ticket_id}.json"


def read_cassette(ticket: dict) -> dict:
    path = cassette_path(ticket["id"])
    if not path.is_file():
        raise MissingCassette(f"{path.relative_to(HERE)} not found (ticket {ticket['id']})")
    tape = json.loads(path.read_text(encoding="utf-8"))
    if tape["prompt_sha1"] != prompt_hash(messages_for(ticket)):
        raise MissingCassette(f"{path.relative_to(HERE)} was recorded with another prompt (ticket {ticket['id']})")
    return tape["response"]


def write_cassette(ticket: dict, request: dict, response: dict) -> None:
    CASSETTES.mkdir(exist_ok=True)
    tape = {
        "ticket": ticket["id"],
        "prompt_sha1": prompt_hash(request["messages"]),
        "request": request,
        "response": response,
    }
    path = cassette_path(ticket["id"])
    path.with_suffix(".tmp").write_text(json.dumps(tape, indent=4, ensure_ascii=False) + "\n", encoding="utf-8")
    path.with_suffix(".tmp").replace(path)


# ---------------------------------------------------------------- modes


def log(message: str) -> None:
    OUT.mkdir(exist_ok=True)
    with open(OUT / "run.log", "a", encoding="utf-8") as fh:
        fh.write(f"{time.strftime('%Y-%m-%dT%H:%M:%S%z')} {message}\n")


def answers_from_cassettes(tickets: list[dict]) -> list[dict]:
    rows = []
    for ticket in tickets:
        parsed = parse_answer(reply_content(read_cassette(ticket)))
        if parsed is None:
            raise MissingCassette(f"cassette for {ticket['id']} holds no usable answer")
        rows.append({"id": ticket["id"], "label": parsed[0], "justification": parsed[1]})
    return rows


def record(tickets: list[dict]) -> None:
    import backoff
    import httpx

    base_url = os.environ.get("OPENAI_BASE_URL", "https://api.openai.com/v1").rstrip("/")
    api_key = os.environ.get("OPENAI_API_KEY", "")
    model = os.environ.get("MODEL", "gpt-4o-mini")
    calls = 0

    class Retry(Exception):
        pass

    def giveup_when_out_of_budget(_exc: Exception) -> bool:
        return calls >= MAX_CALLS

    @backoff.on_exception(backoff.expo, Retry, max_tries=3, factor=0.25, jitter=None,
                          giveup=giveup_when_out_of_budget, raise_on_giveup=True)
    def call(client: httpx.Client, ticket_id: str, request: dict) -> dict:
        nonlocal calls
        if calls >= MAX_CALLS:
            raise RecordAborted(f"call budget ({MAX_CALLS}) used up before {ticket_id}")
        calls += 1
        started = time.perf_counter()
        try:
            resp = client.post(f"{base_url}/chat/completions", json=request)
        except httpx.HTTPError as exc:
            log(f"{ticket_id} call {calls}: {exc!r}")
            raise Retry(str(exc)) from exc
        log(f"{ticket_id} call {calls}: HTTP {resp.status_code} {time.perf_counter() - started:.3f}s")
        if resp.status_code >= 500 or resp.status_code == 429:
            raise Retry(f"HTTP {resp.status_code}")
        if resp.status_code != 200:
            raise RecordAborted(f"{ticket_id}: HTTP {resp.status_code} {resp.text[:200]}")
        body = resp.json()
        if parse_answer(reply_content(body)) is None:
            raise Retry("reply without a valid label")
        log(f"{ticket_id} model={body.get('model')} usage={json.dumps(body.get('usage'))}")
        return body

    with httpx.Client(headers={"Authorization": f"Bearer {api_key}"}, timeout=30) as client:
        for ticket in tickets:
            request = {"model": model, "messages": messages_for(ticket), "temperature": 0,
                       "response_format": {"type": "json_object"}}
            try:
                response = call(client, ticket["id"], request)
            except Retry as exc:
                raise RecordAborted(f"{ticket['id']}: giving up ({exc}) after {calls} calls in total") from None
            write_cassette(ticket, request, response)
    log(f"record done, {calls} calls")


def main(argv: list[str]) -> int:
    if len(argv) != 1 or argv[0] not in ("record", "replay"):
        print("usage: triage.py record|replay", file=sys.stderr)
        return 2
    mode = argv[0]
    tickets = json.loads(TICKETS.read_text(encoding="utf-8"))
    try:
        if mode == "record":
            record(tickets)
        rows = answers_from_cassettes(tickets)
    except MissingCassette as exc:
        print(f"replay failed: {exc}. Run `./run.sh record` to record the cassettes.", file=sys.stderr)
        return 1
    except RecordAborted as exc:
        print(f"record failed: {exc}", file=sys.stderr)
        return 1
    OUT.mkdir(exist_ok=True)
    tmp = OUT / "answers.json.tmp"
    tmp.write_text(json.dumps(rows, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    tmp.replace(OUT / "answers.json")
    print(f"{mode}: {len(rows)} tickets -> out/answers.json")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
