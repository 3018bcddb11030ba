"""The only module that talks to the network. Imported by `triage record`, never by replay."""

from __future__ import annotations

import logging
import os
import time

import httpx

log = logging.getLogger(__name__)

CALL_BUDGET = 40  # hard cap per record run; every HTTP attempt counts
TRIES_PER_TICKET = 2  # one try + one retry


class BudgetSpent(RuntimeError):
    pass


class ModelDown(RuntimeError):
    pass


class ChatModel:
    def __init__(self) -> None:
        key = os.environ.get("OPENAI_API_KEY")
        if not key:
            raise ModelDown("OPENAI_API_KEY is not set")
        self.base_url = os.environ.get("OPENAI_BASE_URL", "https://api.openai.com/v1").rstrip("/")
        self.model = os.environ.get("MODEL", "gpt-4o-mini")
        self.calls = 0
        self._http = httpx.Client(
            base_url=self.base_url,
            headers={"Authorization": f"Bearer {key}"},
            timeout=httpx.Timeout(20.0, connect=5.0),
        )

    def close(self) -> None:
        self._http.close()

    def request_body(self, messages: list[dict]) -> dict:
        return {"model": self.model, "messages": messages, "temperature": 0,
                "response_format": {"type": "json_object"}}

    def complete(self, ticket_id: str, body: dict, usable) -> dict:
        """POST /chat/completions, retrying once on errors or on a reply `usable` rejects."""
        problem = "no attempt made"
        for attempt in range(1, TRIES_PER_TICKET + 1):
            if self.calls >= CALL_BUDGET:
                raise BudgetSpent(f"spent all {CALL_BUDGET} model calls (at {ticket_id})")
            if attempt > 1:
                time.sleep(0.5)
            self.calls += 1
            started = time.monotonic()
            try:
                resp = self._http.post("/chat/completions", json=body)
            except httpx.HTTPError as exc:
                problem = f"{type(exc).__name__}: {exc}"
                log.warning("%s attempt %d: %s", ticket_id, attempt, problem)
                continue
            elapsed = time.monotonic() - started
            if resp.status_code != 200:
                problem = f"HTTP {resp.status_code}"
                log.warning("%s attempt %d: %s (%.2fs)", ticket_id, attempt, problem, elapsed)
                continue
            data = resp.json()
            log.info("%s attempt %d: ok in %.2fs model=%s usage=%s",
                     ticket_id, attempt, elapsed, data.get("model"), data.get("usage"))
            if usable(data):
                return data
            problem = "reply without a usable label"
        raise ModelDown(f"{ticket_id}: gave up after {TRIES_PER_TICKET} attempts ({problem})")
