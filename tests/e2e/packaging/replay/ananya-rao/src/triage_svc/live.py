"""The HTTP side. Only `record` imports this module; replay never builds a client."""

from __future__ import annotations

import os
import time
from typing import Any, Callable

import httpx

from .errors import TriageError

CALL_BUDGET = 40                # per record run, retries included
RETRY_DELAYS = (0.2, 0.5)       # so at most 3 attempts per request
RETRYABLE_STATUS = {408, 409, 429, 500, 502, 503, 504}


class GiveUp(TriageError):
    pass


class ChatClient:
    def __init__(self, log: Callable[..., None]) -> None:
        base_url = os.environ.get("OPENAI_BASE_URL", "https://api.openai.com/v1").rstrip("/")
        api_key = os.environ.get("OPENAI_API_KEY")
        if not api_key:
            raise GiveUp("OPENAI_API_KEY is not set")
        self.model = os.environ.get("MODEL", "gpt-4o-mini")
        self.calls = 0
        self._log = log
        self._http = httpx.Client(
            base_url=base_url,
            headers={"Authorization": f"Bearer {api_key}"},
            timeout=httpx.Timeout(20.0, connect=5.0),
        )

    def close(self) -> None:
        self._http.close()

    def request_body(self, messages: list[dict[str, str]]) -> dict[str, Any]:
        return {
            "model": self.model,
            "messages": messages,
            "temperature": 0,
            "response_format": {"type": "json_object"},
        }

    def complete(self, ticket_id: str, body: dict[str, Any]) -> dict[str, Any]:
        problem = "no attempt made"
        for attempt in range(len(RETRY_DELAYS) + 1):
            if attempt:
                time.sleep(RETRY_DELAYS[attempt - 1])
            if self.calls >= CALL_BUDGET:
                raise GiveUp(f"call budget of {CALL_BUDGET} used up at ticket {ticket_id}")
            self.calls += 1
            started = time.perf_counter()
            try:
                resp = self._http.post("/chat/completions", json=body)
            except httpx.TransportError as exc:
                problem = f"{type(exc).__name__}: {exc}"
                self._log(ticket=ticket_id, attempt=attempt + 1, error=problem)
                continue
            elapsed_ms = round((time.perf_counter() - started) * 1000)
            if resp.status_code == 200:
                payload = resp.json()
                self._log(
                    ticket=ticket_id,
                    attempt=attempt + 1,
                    status=200,
                    latency_ms=elapsed_ms,
                    model=payload.get("model"),
                    usage=payload.get("usage"),
                )
                return payload
            problem = f"HTTP {resp.status_code}"
            self._log(ticket=ticket_id, attempt=attempt + 1, status=resp.status_code, latency_ms=elapsed_ms)
            if resp.status_code not in RETRYABLE_STATUS:
                raise GiveUp(f"ticket {ticket_id}: {problem}: {resp.text[:200]}")
        raise GiveUp(f"ticket {ticket_id}: giving up after {len(RETRY_DELAYS) + 1} attempts ({problem})")
