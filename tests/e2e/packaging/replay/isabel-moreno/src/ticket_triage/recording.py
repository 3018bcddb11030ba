"""Record mode: the openai SDK, with its own retries off so every HTTP request is counted here."""

from __future__ import annotations

import logging
import os
import time

import openai

from ticket_triage import store
from ticket_triage.triage import parse, prompt_messages

MAX_CALLS = 40
ATTEMPTS = 2

logger = logging.getLogger(__name__)


class RecordingFailed(Exception):
    pass


def record_all(tickets: list[dict]) -> int:
    client = openai.OpenAI(
        base_url=os.environ.get("OPENAI_BASE_URL", "https://api.openai.com/v1"),
        api_key=os.environ.get("OPENAI_API_KEY", "missing"),
        max_retries=0,
        timeout=30.0,
    )
    model = os.environ.get("MODEL", "gpt-4o-mini")
    calls = 0
    for ticket in tickets:
        messages = prompt_messages(ticket)
        request = {"model": model, "messages": messages, "temperature": 0, "response_format": {"type": "json_object"}}
        error = ""
        for attempt in range(ATTEMPTS):
            if calls == MAX_CALLS:
                raise RecordingFailed(f"hit the {MAX_CALLS}-call limit while on {ticket['id']}")
            calls += 1
            if attempt:
                time.sleep(0.5)
            started = time.perf_counter()
            try:
                completion = client.chat.completions.create(**request)
            except openai.APIStatusError as exc:
                error = f"HTTP {exc.status_code}"
                logger.warning("%s: %s", ticket["id"], error)
                continue
            except openai.APIConnectionError as exc:
                error = f"connection error: {exc}"
                logger.warning("%s: %s", ticket["id"], error)
                continue
            logger.info(
                "%s: %.3fs model=%s tokens=%s",
                ticket["id"],
                time.perf_counter() - started,
                completion.model,
                completion.usage.total_tokens if completion.usage else None,
            )
            if parse(completion.choices[0].message.content) is None:
                error = "reply had no valid label"
                continue
            store.save(ticket["id"], messages, request, completion.model_dump(mode="json"))
            break
        else:
            raise RecordingFailed(f"{ticket['id']}: {ATTEMPTS} attempts failed, last: {error}")
    logger.info("recorded %d tickets with %d calls", len(tickets), calls)
    return calls
