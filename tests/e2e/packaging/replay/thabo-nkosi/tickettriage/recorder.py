"""Live chat-completions calls with a hard call budget. Imported by `record` only."""

from __future__ import annotations

import logging
import os
import time

import httpx

logger = logging.getLogger(__name__)

MAX_MODEL_CALLS = 40
RETRY_WAITS = (0.25, 0.75)          # two retries per request
RETRY_STATUS = frozenset({408, 409, 425, 429, 500, 502, 503, 504})


class RecordFailed(Exception):
    pass


class Recorder:
    def __init__(self) -> None:
        base = os.environ.get("OPENAI_BASE_URL", "https://api.openai.com/v1").rstrip("/")
        key = os.environ.get("OPENAI_API_KEY", "")
        if not key:
            raise RecordFailed("OPENAI_API_KEY is not set")
        self.model = os.environ.get("MODEL", "gpt-4o-mini")
        self.url = f"{base}/chat/completions"
        # transport retries stay at 0 (the default), so every request is one of ours
        self.http = httpx.Client(headers={"Authorization": f"Bearer {key}"}, timeout=20.0)
        self.calls = 0

    def request(self, messages: list[dict]) -> dict:
        return {
            "model": self.model,
            "messages": messages,
            "temperature": 0,
            "response_format": {"type": "json_object"},
        }

    def call(self, ticket_id: str, payload: dict) -> tuple[int, dict]:
        waits = iter(RETRY_WAITS)
        while True:
            if self.calls >= MAX_MODEL_CALLS:
                raise RecordFailed(f"model call budget ({MAX_MODEL_CALLS}) exhausted at {ticket_id}")
            self.calls += 1
            t0 = time.perf_counter()
            try:
                resp = self.http.post(self.url, json=payload)
            except httpx.TransportError as exc:
                reason = f"{type(exc).__name__}: {exc}"
            else:
                dt = time.perf_counter() - t0
                if resp.status_code == 200:
                    body = resp.json()
                    logger.info("%s: 200 in %.3fs model=%s usage=%s", ticket_id, dt, body.get("model"), body.get("usage"))
                    return resp.status_code, body
                reason = f"HTTP {resp.status_code}"
                logger.info("%s: %s in %.3fs", ticket_id, reason, dt)
                if resp.status_code not in RETRY_STATUS:
                    raise RecordFailed(f"{ticket_id}: {reason} {resp.text[:200]}")
            wait = next(waits, None)
            if wait is None:
                raise RecordFailed(f"{ticket_id}: giving up after {len(RETRY_WAITS) + 1} attempts, last: {reason}")
            logger.warning("%s: %s, retrying in %.2fs", ticket_id, reason, wait)
            time.sleep(wait)

    def close(self) -> None:
        self.http.close()
