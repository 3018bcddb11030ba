"""Record-only: httpx + tenacity. Replay never imports this."""

from __future__ import annotations

import logging
import os

import httpx
from tenacity import RetryError, Retrying, retry_if_exception_type, stop_after_attempt, wait_fixed

from triage_app.reply import parse_reply

log = logging.getLogger(__name__)
CALL_CAP = 40


class Retryable(Exception):
    pass


class CapReached(Exception):
    pass


class Failed(Exception):
    pass


class ModelClient:
    def __init__(self) -> None:
        self.url = os.getenv("OPENAI_BASE_URL", "https://api.openai.com/v1").rstrip("/") + "/chat/completions"
        self.model = os.getenv("MODEL", "gpt-4o-mini")
        self.http = httpx.Client(headers={"Authorization": f"Bearer {os.getenv('OPENAI_API_KEY', '')}"}, timeout=30)
        self.count = 0

    def body(self, messages: list[dict]) -> dict:
        return {"model": self.model, "messages": messages, "temperature": 0, "response_format": {"type": "json_object"}}

    def _once(self, ticket_id: str, body: dict) -> dict:
        if self.count >= CALL_CAP:
            raise CapReached(f"model call cap ({CALL_CAP}) reached at {ticket_id}")
        self.count += 1
        try:
            r = self.http.post(self.url, json=body)
        except httpx.TransportError as e:
            raise Retryable(repr(e)) from e
        log.info("%s -> %s in %.3fs", ticket_id, r.status_code, r.elapsed.total_seconds())
        if r.status_code == 429 or r.status_code >= 500:
            raise Retryable(f"HTTP {r.status_code}")
        if r.status_code != 200:
            raise Failed(f"{ticket_id}: HTTP {r.status_code} {r.text[:200]}")
        data = r.json()
        log.info("%s model=%s usage=%s", ticket_id, data.get("model"), data.get("usage"))
        content = (data.get("choices") or [{}])[0].get("message", {}).get("content")
        if parse_reply(content) is None:
            raise Retryable("reply without a valid label")
        return data

    def complete(self, ticket_id: str, body: dict) -> dict:
        try:
            for attempt in Retrying(stop=stop_after_attempt(3), wait=wait_fixed(0.2),
                                    retry=retry_if_exception_type(Retryable)):
                with attempt:
                    return self._once(ticket_id, body)
        except RetryError as e:
            raise Failed(f"{ticket_id}: 3 attempts failed ({e.last_attempt.exception()})") from None
        raise AssertionError("unreachable")

    def close(self) -> None:
        self.http.close()
