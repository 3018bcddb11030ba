"""HTTP side (record only)."""

import logging
import os
import time

import requests

log = logging.getLogger(__name__)

LIMIT = 40
WAITS = [0.1, 0.3]  # pauses before the 2nd and 3rd attempt


class GiveUp(Exception):
    pass


class Chat:
    def __init__(self):
        self.endpoint = os.environ.get("OPENAI_BASE_URL", "https://api.openai.com/v1").rstrip("/") + "/chat/completions"
        self.model = os.environ.get("MODEL", "gpt-4o-mini")
        self.headers = {"Authorization": "Bearer " + os.environ.get("OPENAI_API_KEY", "")}
        self.used = 0

    def request(self, messages):
        return {"model": self.model, "temperature": 0, "messages": messages,
                "response_format": {"type": "json_object"}}

    def send(self, ticket_id, request, accept):
        last = None
        for wait in [0.0] + WAITS:
            if self.used >= LIMIT:
                raise GiveUp(f"reached the limit of {LIMIT} model calls at {ticket_id}")
            time.sleep(wait)
            self.used += 1
            t = time.monotonic()
            try:
                r = requests.post(self.endpoint, json=request, headers=self.headers, timeout=30)
            except requests.RequestException as e:
                last = repr(e)
                log.warning("%s: %s", ticket_id, last)
                continue
            log.info("%s: %d after %.0f ms", ticket_id, r.status_code, (time.monotonic() - t) * 1000)
            if r.status_code == 200:
                body = r.json()
                log.info("%s: model %s, usage %s", ticket_id, body.get("model"), body.get("usage"))
                if accept(body):
                    return r.status_code, body
                last = "no valid label in the reply"
            elif r.status_code in (400, 401, 403, 404):
                raise GiveUp(f"{ticket_id}: HTTP {r.status_code}: {r.text[:200]}")
            else:
                last = f"HTTP {r.status_code}"
        raise GiveUp(f"{ticket_id}: no usable answer after {1 + len(WAITS)} attempts ({last})")
