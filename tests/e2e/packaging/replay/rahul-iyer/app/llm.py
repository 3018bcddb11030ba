"""Live model calls (record mode only)."""

import logging
import os
import time

import requests
from dotenv import load_dotenv

from app.labels import parse_model_output

MAX_CALLS = 40
TRIES_PER_TICKET = 2
BREAKER = 3  # consecutive failed calls after which we stop hammering the endpoint

log = logging.getLogger("llm")


class StopRecording(Exception):
    pass


class LLM:
    def __init__(self):
        load_dotenv()  # a local .env, if any; real env vars win
        self.url = os.environ.get("OPENAI_BASE_URL", "https://api.openai.com/v1").rstrip("/") + "/chat/completions"
        self.key = os.environ.get("OPENAI_API_KEY")
        if not self.key:
            raise StopRecording("OPENAI_API_KEY is not set (environment or .env)")
        self.model = os.environ.get("MODEL", "gpt-4o-mini")
        self.calls = 0
        self.failures_in_a_row = 0

    def ask(self, ticket_id, prompt):
        """-> raw response bytes whose content parses; raises StopRecording."""
        payload = {"model": self.model, "messages": prompt, "temperature": 0,
                   "response_format": {"type": "json_object"}}
        for attempt in range(1, TRIES_PER_TICKET + 1):
            if self.calls >= MAX_CALLS:
                raise StopRecording("reached %d model calls" % MAX_CALLS)
            if self.failures_in_a_row >= BREAKER:
                raise StopRecording("%d failed calls in a row, the endpoint looks down" % self.failures_in_a_row)
            self.calls += 1
            start = time.time()
            try:
                r = requests.post(self.url, json=payload, timeout=(5, 30),
                                  headers={"Authorization": "Bearer " + self.key})
                ok = r.status_code == 200
                detail = "HTTP %d" % r.status_code
            except requests.RequestException as e:
                ok, detail, r = False, type(e).__name__, None
            log.info("%s try %d: %s (%.2fs)", ticket_id, attempt, detail, time.time() - start)
            if ok:
                data = r.json()
                log.info("%s usage=%s model=%s", ticket_id, data.get("usage"), data.get("model"))
                try:
                    content = data["choices"][0]["message"]["content"]
                except (KeyError, IndexError, TypeError):
                    content = None
                if parse_model_output(content):
                    self.failures_in_a_row = 0
                    return r.content
                detail = "unparseable reply"
            self.failures_in_a_row += 1
            time.sleep(0.25 * attempt)
        raise StopRecording("%s: no usable answer in %d tries (%s)" % (ticket_id, TRIES_PER_TICKET, detail))
