"""Network side, record mode only."""

from __future__ import annotations

import logging
import os
import time

import requests

from triage.domain import read_verdict

CALL_LIMIT = 40
MAX_ATTEMPTS = 3

log = logging.getLogger("triage.live")


class LiveError(Exception):
    pass


class ChatAPI:
    def __init__(self) -> None:
        self.url = os.getenv("OPENAI_BASE_URL", "https://api.openai.com/v1").rstrip("/") + "/chat/completions"
        self.model = os.getenv("MODEL", "gpt-4o-mini")
        self.session = requests.Session()
        self.session.headers["Authorization"] = f"Bearer {os.getenv('OPENAI_API_KEY', '')}"
        self.calls = 0

    def payload(self, messages: list[dict]) -> dict:
        return {"model": self.model, "messages": messages, "temperature": 0,
                "response_format": {"type": "json_object"}}

    @staticmethod
    def _pause(resp: requests.Response | None, attempt: int) -> float:
        # honour Retry-After when the server sends one, but never wait more than a second
        if resp is not None and resp.headers.get("Retry-After", "").isdigit():
            return min(float(resp.headers["Retry-After"]), 1.0)
        return 0.25 * attempt

    def chat(self, ticket_id: str, payload: dict) -> tuple[int, dict]:
        problem = ""
        for attempt in range(1, MAX_ATTEMPTS + 1):
            if self.calls >= CALL_LIMIT:
                raise LiveError(f"call limit of {CALL_LIMIT} reached (ticket {ticket_id})")
            self.calls += 1
            resp = None
            try:
                resp = self.session.post(self.url, json=payload, timeout=(5, 30))
                log.info("%s attempt %d: %s in %.2fs", ticket_id, attempt, resp.status_code,
                         resp.elapsed.total_seconds())
                if resp.status_code == 200:
                    body = resp.json()
                    log.info("%s model=%s usage=%s", ticket_id, body.get("model"), body.get("usage"))
                    content = ((body.get("choices") or [{}])[0].get("message") or {}).get("content")
                    if read_verdict(content) is not None:
                        return resp.status_code, body
                    problem = "no valid label in the reply"
                elif resp.status_code in (400, 401, 403, 404, 422):
                    raise LiveError(f"{ticket_id}: HTTP {resp.status_code}: {resp.text[:200]}")
                else:
                    problem = f"HTTP {resp.status_code}"
            except requests.RequestException as exc:
                problem = f"{type(exc).__name__}: {exc}"
            if attempt < MAX_ATTEMPTS:
                time.sleep(self._pause(resp, attempt))
        raise LiveError(f"{ticket_id}: {MAX_ATTEMPTS} attempts, no answer ({problem})")
