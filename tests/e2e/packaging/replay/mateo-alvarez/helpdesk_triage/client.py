"""HTTP client for the chat-completions endpoint. Imported only in record mode."""

import os
import time

import requests
from tenacity import Retrying, retry_if_exception_type, stop_after_attempt, wait_exponential

MAX_CALLS = 40
RETRY_ON_STATUS = {408, 409, 429, 500, 502, 503, 504}


class RecordError(Exception):
    pass


class BudgetExhausted(RecordError):
    pass


class Transient(Exception):
    """Worth another try."""


class ChatClient:
    def __init__(self, log):
        self.url = os.environ.get("OPENAI_BASE_URL", "https://api.openai.com/v1").rstrip("/") + "/chat/completions"
        key = os.environ.get("OPENAI_API_KEY")
        if not key:
            raise RecordError("OPENAI_API_KEY is not set")
        self.model = os.environ.get("MODEL", "gpt-4o-mini")
        self.session = requests.Session()
        self.session.headers["Authorization"] = f"Bearer {key}"
        self.calls = 0
        self.log = log

    def body(self, messages: list[dict]) -> dict:
        return {
            "model": self.model,
            "messages": messages,
            "temperature": 0,
            "response_format": {"type": "json_object"},
        }

    def _spend(self, ticket_id: str) -> None:
        if self.calls >= MAX_CALLS:
            raise BudgetExhausted(f"stopped at {ticket_id}: the budget of {MAX_CALLS} model calls is used up")
        self.calls += 1

    def _post_once(self, ticket_id: str, body: dict) -> dict:
        self._spend(ticket_id)
        started = time.monotonic()
        try:
            resp = self.session.post(self.url, json=body, timeout=(5, 20))
        except (requests.ConnectionError, requests.Timeout) as exc:
            self.log(ticket=ticket_id, error=type(exc).__name__)
            raise Transient(f"{type(exc).__name__}: {exc}") from exc
        took_ms = int((time.monotonic() - started) * 1000)
        self.log(ticket=ticket_id, status=resp.status_code, took_ms=took_ms)
        if resp.status_code in RETRY_ON_STATUS:
            raise Transient(f"HTTP {resp.status_code}")
        if resp.status_code != 200:
            raise RecordError(f"{ticket_id}: HTTP {resp.status_code}: {resp.text[:200]}")
        data = resp.json()
        self.log(ticket=ticket_id, model=data.get("model"), usage=data.get("usage"))
        return data

    def complete(self, ticket_id: str, body: dict) -> dict:
        # 3 attempts per request, 0.25 s then 0.5 s apart; each attempt is one call of the budget.
        retrying = Retrying(
            stop=stop_after_attempt(3),
            wait=wait_exponential(multiplier=0.25, min=0.25, max=2),
            retry=retry_if_exception_type(Transient),
            reraise=True,
        )
        try:
            for attempt in retrying:
                with attempt:
                    return self._post_once(ticket_id, body)
        except Transient as exc:
            raise RecordError(f"{ticket_id}: endpoint still failing after 3 attempts ({exc})") from None
