"""Live calls to the chat-completions endpoint (record mode only)."""

import logging
import os
import time

import requests

from . import cassettes
from .labels import read_answer

MAX_CALLS = 40
ATTEMPTS_PER_TICKET = 2
PAUSE = 0.2

log = logging.getLogger("ticketsort.recorder")


class Recorder:
    def __init__(self):
        self.base_url = os.environ.get("OPENAI_BASE_URL", "https://api.openai.com/v1").rstrip("/")
        self.api_key = os.environ.get("OPENAI_API_KEY", "")
        self.model = os.environ.get("MODEL", "gpt-4o-mini")
        self.calls = 0
        self.session = requests.Session()
        self.session.headers.update({"Authorization": "Bearer " + self.api_key})

    @property
    def url(self):
        return self.base_url + "/chat/completions"

    def budget_left(self):
        return MAX_CALLS - self.calls

    def record_ticket(self, ticket, messages):
        """Try up to twice; on success write the cassette and return True."""
        body = {"model": self.model, "messages": messages, "temperature": 0,
                "response_format": {"type": "json_object"}}
        for attempt in range(ATTEMPTS_PER_TICKET):
            if self.calls >= MAX_CALLS:
                return False
            if attempt:
                time.sleep(PAUSE)
            self.calls += 1
            t0 = time.time()
            try:
                resp = self.session.post(self.url, json=body, timeout=30)
            except requests.RequestException as exc:
                log.warning("%s: %s", ticket["id"], exc)
                continue
            log.info("%s: HTTP %s in %.3fs", ticket["id"], resp.status_code, time.time() - t0)
            if resp.status_code != 200:
                continue
            try:
                data = resp.json()
                content = data["choices"][0]["message"]["content"]
            except (ValueError, KeyError, IndexError, TypeError):
                log.warning("%s: malformed response", ticket["id"])
                continue
            log.info("%s: model=%s usage=%s", ticket["id"], data.get("model"), data.get("usage"))
            if read_answer(content) is None:
                log.warning("%s: no usable label in %r", ticket["id"], content)
                continue
            cassettes.save(ticket["id"], self.url, body, resp.status_code, resp.reason,
                           resp.headers.get("Content-Type", "application/json"), resp.text)
            return True
        return False
