# /// script
# requires-python = ">=3.10"
# dependencies = ["httpx>=0.27"]
# ///
"""Support-ticket triage with a record/replay boundary around the model call.

    uv run triage.py record   # calls $OPENAI_BASE_URL/chat/completions, writes cassettes/ + out/answers.json
    uv run triage.py replay   # offline: reads cassettes/, writes out/answers.json

Single file on purpose; the dependencies are declared inline above (PEP 723), so
`uv run` builds the environment by itself.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import sys
import time
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
TICKETS = HERE / "tickets.json"
CASSETTES = HERE / "cassettes"
OUT = HERE / "out"

LABELS = ("billing", "bug", "account", "feature_request", "other")

CALL_CAP = 40            # model calls per record run, retries included
TRIES_PER_TICKET = 2     # first call + one retry (endpoint error or unusable reply)
RETRY_PAUSE = 1.0        # seconds before the retry
TRANSIENT_HTTP = {408, 409, 429, 500, 502, 503, 504}

INSTRUCTIONS = (
    "Triage this customer support ticket. Choose exactly one label from this list: "
    + ", ".join(LABELS)
    + ". Reply with a JSON object only, with the keys \"label\" and \"justification\"; "
    "the justification is a single short sentence saying why."
)


class Fatal(Exception):
    """Stops the run: printed to stderr, exit status 1."""


# ---------------------------------------------------------------- prompt + reply


def build_messages(ticket: dict) -> list[dict]:
    return [
        {"role": "system", "content": INSTRUCTIONS},
        {"role": "user", "content": ticket["body"]},
    ]


@dataclass(frozen=True)
class Verdict:
    label: str
    justification: str


def read_verdict(content) -> Verdict | None:
    """JSON `{"label", "justification"}` or `label: ...` / `justification: ...` lines; None if unusable."""
    if not isinstance(content, str):
        return None
    text = content.strip()
    if text.startswith("```"):
        text = re.sub(r"^```\w*|```$", "", text).strip()
    try:
        data = json.loads(text)
    except ValueError:
        data = None
    if not isinstance(data, dict):
        data = {}
        for line in text.splitlines():
            m = re.match(r"\s*[-*]?\s*(label|justification)\s*[:=]\s*(.*)", line, re.IGNORECASE)
            if m:
                data.setdefault(m.group(1).lower(), m.group(2))
    label = data.get("label")
    if not isinstance(label, str):
        return None
    label = label.strip().strip("\"'`.*").strip().lower().replace("-", "_").replace(" ", "_")
    if label not in LABELS:
        return None
    why = " ".join(str(data.get("justification") or "").split())
    return Verdict(label, why)


def message_content(response: dict):
    try:
        return response["choices"][0]["message"]["content"]
    except (KeyError, IndexError, TypeError):
        return None


# ---------------------------------------------------------------- cassettes


def cassette_path(ticket_id: str, messages: list[dict]) -> Path:
    """cassettes/<ticket id>_<sha1 of the messages, 16 hex>.json. The model id is not part of it."""
    blob = json.dumps(messages, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return CASSETTES / f"{ticket_id}_{hashlib.sha1(blob.encode('utf-8')).hexdigest()[:16]}.json"


def load_cassette(ticket_id: str, messages: list[dict]) -> dict:
    path = cassette_path(ticket_id, messages)
    if not path.is_file():
        raise Fatal(
            f"cassette missing for ticket {ticket_id}: {path.relative_to(HERE)}\n"
            "Replay never calls the model. Run `./run.sh record` to (re)create the cassettes."
        )
    return json.loads(path.read_text(encoding="utf-8"))["response"]


def save_cassette(ticket_id: str, messages: list[dict], request: dict, status: int, response: dict) -> None:
    CASSETTES.mkdir(exist_ok=True)
    path = cassette_path(ticket_id, messages)
    for older in CASSETTES.glob(f"{ticket_id}_*.json"):
        if older != path:
            older.unlink()
    doc = {"ticket_id": ticket_id, "request": request, "status": status, "response": response}
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(doc, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    tmp.replace(path)


# ---------------------------------------------------------------- output


def note(**fields) -> None:
    """Everything that changes from run to run goes to out/run.log, not out/answers.json."""
    OUT.mkdir(exist_ok=True)
    fields["unix_time"] = round(time.time(), 3)
    with open(OUT / "run.log", "a", encoding="utf-8") as log:
        log.write(json.dumps(fields, sort_keys=True, default=str) + "\n")


def publish(rows: list[dict]) -> None:
    OUT.mkdir(exist_ok=True)
    tmp = OUT / "answers.json.tmp"
    tmp.write_text(json.dumps(rows, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    tmp.replace(OUT / "answers.json")


def answer_row(ticket: dict, verdict: Verdict) -> dict:
    return {"id": ticket["id"], "label": verdict.label, "justification": verdict.justification}


# ---------------------------------------------------------------- modes


def replay(tickets: list[dict]) -> list[dict]:
    rows = []
    for ticket in tickets:
        response = load_cassette(ticket["id"], build_messages(ticket))
        verdict = read_verdict(message_content(response))
        if verdict is None:
            raise Fatal(f"the cassette for {ticket['id']} has no usable label; run `./run.sh record` again")
        rows.append(answer_row(ticket, verdict))
    return rows


def record(tickets: list[dict]) -> list[dict]:
    import httpx  # record only: the replay path never loads an HTTP client

    key = os.environ.get("OPENAI_API_KEY")
    if not key:
        raise Fatal("OPENAI_API_KEY is not set (record needs an OpenAI-compatible endpoint)")
    url = os.environ.get("OPENAI_BASE_URL", "https://api.openai.com/v1").rstrip("/") + "/chat/completions"
    model = os.environ.get("MODEL", "gpt-4o-mini")
    calls = 0
    rows = []
    with httpx.Client(
        headers={"Authorization": f"Bearer {key}"},
        timeout=httpx.Timeout(25.0, connect=5.0),
    ) as http:
        try:
            for ticket in tickets:
                messages = build_messages(ticket)
                request = {
                    "model": model,
                    "messages": messages,
                    "temperature": 0,
                    "response_format": {"type": "json_object"},
                }
                problem = None
                for attempt in range(1, TRIES_PER_TICKET + 1):
                    if calls >= CALL_CAP:
                        raise Fatal(f"reached the cap of {CALL_CAP} model calls at ticket {ticket['id']}; stopping")
                    if attempt > 1:
                        time.sleep(RETRY_PAUSE)
                    calls += 1
                    started = time.monotonic()
                    try:
                        reply = http.post(url, json=request)
                    except httpx.HTTPError as exc:
                        problem = f"{type(exc).__name__}: {exc}"
                        note(ticket=ticket["id"], attempt=attempt, error=problem)
                        continue
                    elapsed = round(time.monotonic() - started, 3)
                    if reply.status_code != 200:
                        problem = f"HTTP {reply.status_code}"
                        note(ticket=ticket["id"], attempt=attempt, status=reply.status_code, seconds=elapsed)
                        if reply.status_code in TRANSIENT_HTTP:
                            continue
                        raise Fatal(f"{ticket['id']}: the endpoint answered {problem}: {reply.text[:200]}")
                    try:
                        response = reply.json()
                    except ValueError:
                        problem = "HTTP 200 but the body is not JSON"
                        note(ticket=ticket["id"], attempt=attempt, status=200, seconds=elapsed, error=problem)
                        continue
                    note(
                        ticket=ticket["id"],
                        attempt=attempt,
                        status=200,
                        seconds=elapsed,
                        model=response.get("model"),
                        usage=response.get("usage"),
                    )
                    verdict = read_verdict(message_content(response))
                    if verdict is None:
                        problem = "reply without a usable label"
                        continue
                    save_cassette(ticket["id"], messages, request, reply.status_code, response)
                    rows.append(answer_row(ticket, verdict))
                    break
                else:
                    raise Fatal(f"{ticket['id']}: no usable answer after {TRIES_PER_TICKET} tries ({problem})")
        finally:
            note(mode="record", calls=calls)
    return rows


def main(argv: list[str]) -> int:
    if len(argv) != 1 or argv[0] not in ("record", "replay"):
        print("usage: ./run.sh record|replay", file=sys.stderr)
        return 2
    mode = argv[0]
    tickets = json.loads(TICKETS.read_text(encoding="utf-8"))
    try:
        rows = record(tickets) if mode == "record" else replay(tickets)
    except Fatal as exc:
        print(f"{mode}: {exc}", file=sys.stderr)
        return 1
    publish(rows)
    print(f"{mode}: wrote out/answers.json ({len(rows)} tickets)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
