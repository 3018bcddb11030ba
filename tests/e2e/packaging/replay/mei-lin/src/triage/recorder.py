"""The network half (record only)."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any

import httpx

from triage.config import Endpoint

log = logging.getLogger(__name__)

CALL_CAP = 40
TRIES = 2
GIVE_UP_AFTER_FAILED_TICKETS = 5


class RecordError(Exception):
    pass


class Recorder:
    def __init__(self, endpoint: Endpoint) -> None:
        self.endpoint = endpoint
        self.calls = 0
        self.client = httpx.Client(
            base_url=endpoint.base_url,
            headers={"Authorization": f"Bearer {endpoint.api_key}"},
            timeout=httpx.Timeout(30.0, connect=5.0),
        )

    def request_body(self, messages: list[dict[str, str]]) -> dict[str, Any]:
        return {"model": self.endpoint.model, "messages": messages, "temperature": 0,
                "response_format": {"type": "json_object"}}

    def ask(self, ticket_id: str, body: dict[str, Any],
            ok: Callable[[dict[str, Any]], bool]) -> tuple[int, dict[str, Any]] | None:
        """Up to TRIES calls; None when none of them gave a usable answer."""
        for attempt in range(TRIES):
            if self.calls >= CALL_CAP:
                raise RecordError(f"call cap of {CALL_CAP} reached at ticket {ticket_id}")
            if attempt:
                time.sleep(0.3)
            self.calls += 1
            try:
                response = self.client.post("/chat/completions", json=body)
            except httpx.HTTPError as exc:
                log.warning("%s: %s", ticket_id, exc)
                continue
            log.info("%s: HTTP %d in %.3fs", ticket_id, response.status_code, response.elapsed.total_seconds())
            if response.status_code != 200:
                continue
            data: dict[str, Any] = response.json()
            log.info("%s: model=%s usage=%s", ticket_id, data.get("model"), data.get("usage"))
            if ok(data):
                return response.status_code, data
        return None

    def close(self) -> None:
        self.client.close()
