"""POST {OPENAI_BASE_URL}/chat/completions with httpx. Only `record` imports this module."""

from __future__ import annotations

import os
import time
from typing import Callable

import httpx

MAX_CALLS = 40                  # per record run, every HTTP attempt counts
BACKOFF = (0.25, 0.75)          # waits before retry 1 and retry 2
RETRY_STATUSES = frozenset({408, 409, 425, 429, 500, 502, 503, 504})


class ModelCallFailed(RuntimeError):
    """Record cannot go on: out of budget, endpoint down, or a non-retryable error."""


class ChatEndpoint:
    def __init__(self, log: Callable[..., None]) -> None:
        api_key = os.environ.get("OPENAI_API_KEY", "")
        if not api_key:
            raise ModelCallFailed("OPENAI_API_KEY is not set; record needs a chat-completions endpoint")
        self.base_url = os.environ.get("OPENAI_BASE_URL", "https://api.openai.com/v1").rstrip("/")
        self.model = os.environ.get("MODEL") or "gpt-4o-mini"
        self.calls = 0
        self._log = log
        self._client = httpx.Client(
            headers={"Authorization": f"Bearer {api_key}"},
            timeout=httpx.Timeout(30.0, connect=5.0),
            transport=httpx.HTTPTransport(retries=0),
        )

    def __enter__(self) -> ChatEndpoint:
        return self

    def __exit__(self, *exc: object) -> None:
        self._client.close()

    def payload(self, messages: list[dict]) -> dict:
        return {
            "model": self.model,
            "messages": messages,
            "temperature": 0,
            "response_format": {"type": "json_object"},
        }

    def _take_call(self, ticket_id: str) -> None:
        if self.calls >= MAX_CALLS:
            raise ModelCallFailed(f"call budget of {MAX_CALLS} spent before ticket {ticket_id} was done; stopping")
        self.calls += 1

    def send(self, ticket_id: str, payload: dict) -> tuple[int, dict]:
        """One request with up to two retries on transient failures. Returns (status, JSON body)."""
        url = f"{self.base_url}/chat/completions"
        reason = ""
        for attempt in range(1 + len(BACKOFF)):
            if attempt:
                time.sleep(BACKOFF[attempt - 1])
            self._take_call(ticket_id)
            t0 = time.perf_counter()
            try:
                response = self._client.post(url, json=payload)
            except httpx.TransportError as exc:
                reason = f"{type(exc).__name__}: {exc}"
                self._log(ticket=ticket_id, attempt=attempt + 1, error=reason)
                continue
            took_ms = round((time.perf_counter() - t0) * 1000)
            if response.status_code == 200:
                try:
                    body = response.json()
                except ValueError:
                    reason = "HTTP 200 with a body that is not JSON"
                    self._log(ticket=ticket_id, attempt=attempt + 1, error=reason, took_ms=took_ms)
                    continue
                self._log(
                    ticket=ticket_id,
                    attempt=attempt + 1,
                    status=200,
                    took_ms=took_ms,
                    model=body.get("model"),
                    usage=body.get("usage"),
                    response_id=body.get("id"),
                )
                return 200, body
            reason = f"HTTP {response.status_code}"
            self._log(ticket=ticket_id, attempt=attempt + 1, status=response.status_code, took_ms=took_ms)
            if response.status_code not in RETRY_STATUSES:
                raise ModelCallFailed(f"ticket {ticket_id}: {reason}: {response.text[:200]}")
        raise ModelCallFailed(f"ticket {ticket_id}: endpoint still failing after {1 + len(BACKOFF)} attempts ({reason})")
