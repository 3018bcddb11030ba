"""Tiny OpenAI-compatible client (urllib, no SDK). Only used by `record`."""

import json
import os
import time
import urllib.error
import urllib.request

MAX_CALLS = 40
BACKOFF = [0.2, 0.4]


class ModelError(RuntimeError):
    pass


class ChatClient:
    def __init__(self):
        self.url = os.environ.get("OPENAI_BASE_URL", "https://api.openai.com/v1").rstrip("/")
        self.url += "/chat/completions"
        self.key = os.environ.get("OPENAI_API_KEY", "")
        self.model = os.environ.get("MODEL", "gpt-4o-mini")
        self.calls = 0

    def _send(self, body):
        req = urllib.request.Request(
            self.url,
            data=json.dumps(body).encode("utf-8"),
            headers={"Authorization": f"Bearer {self.key}", "Content-Type": "application/json"},
        )
        with urllib.request.urlopen(req, timeout=15) as resp:
            return json.load(resp)

    def chat(self, request):
        """Returns (response_json, latency_seconds). Retries 5xx/connection errors twice."""
        body = {"model": self.model, **request}
        delays = list(BACKOFF)
        while True:
            if self.calls >= MAX_CALLS:
                raise ModelError(f"refusing to make more than {MAX_CALLS} model calls in one record run")
            self.calls += 1
            t0 = time.perf_counter()
            try:
                return self._send(body), time.perf_counter() - t0
            except urllib.error.HTTPError as e:
                if e.code < 500 and e.code != 429:
                    raise ModelError(f"HTTP {e.code}: {e.read()[:200]!r}") from None
                problem = f"HTTP {e.code}"
            except (urllib.error.URLError, OSError) as e:
                problem = f"connection error ({e})"
            if not delays:
                raise ModelError(f"{problem}; gave up after {len(BACKOFF) + 1} attempts")
            time.sleep(delays.pop(0))
