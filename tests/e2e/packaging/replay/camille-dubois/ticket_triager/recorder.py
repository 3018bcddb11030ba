from __future__ import annotations

import logging
import os
import time

import httpx

from ticket_triager import cassette
from ticket_triager.parsing import messages, parse

log = logging.getLogger(__name__)

MAX_CALLS = 40
BACKOFF = (0.2, 0.4)


class RecordFailed(Exception):
    pass


def _content(body: dict) -> str | None:
    try:
        return body["choices"][0]["message"]["content"]
    except (KeyError, IndexError, TypeError):
        return None


def record(tickets: list[dict]) -> None:
    base = os.environ.get("OPENAI_BASE_URL", "https://api.openai.com/v1").rstrip("/")
    model = os.environ.get("MODEL", "gpt-4o-mini")
    headers = {"Authorization": f"Bearer {os.environ.get('OPENAI_API_KEY', '')}"}
    calls = 0
    with httpx.Client(base_url=base, headers=headers, timeout=httpx.Timeout(30, connect=5)) as http:
        for ticket in tickets:
            request = {"model": model, "messages": messages(ticket), "temperature": 0,
                       "response_format": {"type": "json_object"}}
            last_error = "?"
            for delay in (0.0, *BACKOFF):
                if calls >= MAX_CALLS:
                    raise RecordFailed(f"out of model calls ({MAX_CALLS}) at {ticket['id']}")
                time.sleep(delay)
                calls += 1
                try:
                    r = http.post("/chat/completions", json=request)
                except httpx.HTTPError as exc:
                    last_error = repr(exc)
                    continue
                log.info("%s %s %.3fs", ticket["id"], r.status_code, r.elapsed.total_seconds())
                if r.status_code != 200:
                    last_error = f"HTTP {r.status_code}"
                    continue
                body = r.json()
                if parse(_content(body)) is None:
                    last_error = "reply without a valid label"
                    continue
                log.info("%s model=%s usage=%s", ticket["id"], body.get("model"), body.get("usage"))
                cassette.write(ticket["id"], request, body)
                break
            else:
                raise RecordFailed(f"{ticket['id']}: {1 + len(BACKOFF)} attempts failed, last error: {last_error}")
    log.info("record finished with %d calls", calls)
