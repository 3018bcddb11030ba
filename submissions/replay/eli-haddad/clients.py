"""Model clients. Both expose complete(prompt, params) -> str."""

import hashlib
import json
import logging
import os
import time
import urllib.error
import urllib.request
from pathlib import Path

log = logging.getLogger("triage")

CASSETTES = Path("cassettes")


def key_for(prompt, params):
    blob = json.dumps({"prompt": prompt, "params": params}, sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()[:16]


def cassette_path(prompt, params):
    return CASSETTES / f"{key_for(prompt, params)}.json"


class CassetteMissing(RuntimeError):
    pass


class ModelUnavailable(RuntimeError):
    pass


class LiveClient:
    """Calls the chat-completions endpoint and records every answer as a cassette."""

    def __init__(self, max_calls=40, retries=(0.2, 0.4)):
        self.base_url = os.environ.get("OPENAI_BASE_URL", "https://api.openai.com/v1").rstrip("/")
        self.api_key = os.environ.get("OPENAI_API_KEY", "")
        self.model = os.environ.get("MODEL", "gpt-4o-mini")
        self.max_calls = max_calls
        self.retries = retries
        self.calls = 0

    def _post(self, payload):
        self.calls += 1
        if self.calls > self.max_calls:
            raise ModelUnavailable(f"budget cap hit: more than {self.max_calls} calls")
        req = urllib.request.Request(
            f"{self.base_url}/chat/completions",
            data=json.dumps(payload).encode("utf-8"),
            headers={"Content-Type": "application/json", "Authorization": f"Bearer {self.api_key}"},
        )
        with urllib.request.urlopen(req, timeout=15) as resp:
            return json.loads(resp.read())

    def complete(self, prompt, params):
        payload = {"model": self.model, "messages": [{"role": "user", "content": prompt}], **params}
        waits = [*self.retries, None]
        for wait in waits:
            t0 = time.monotonic()
            try:
                body = self._post(payload)
                break
            except urllib.error.HTTPError as e:
                if e.code < 500:
                    raise ModelUnavailable(f"HTTP {e.code} from model endpoint") from None
                err = f"HTTP {e.code}"
            except (urllib.error.URLError, OSError) as e:
                err = str(e)
            if wait is None:
                raise ModelUnavailable(f"model call failed after {len(waits)} attempts: {err}")
            log.info("model call failed (%s), retrying in %.1fs", err, wait)
            time.sleep(wait)

        log.info("call ok model=%s latency_ms=%d usage=%s", body.get("model"),
                 (time.monotonic() - t0) * 1000, json.dumps(body.get("usage")))
        text = body["choices"][0]["message"]["content"]
        CASSETTES.mkdir(exist_ok=True)
        cassette = {
            "prompt": prompt,
            "params": params,
            "text": text,
            "model": body.get("model"),
            "usage": body.get("usage"),
        }
        cassette_path(prompt, params).write_text(
            json.dumps(cassette, indent=2, sort_keys=True, ensure_ascii=False) + "\n", encoding="utf-8"
        )
        return text


class ReplayClient:
    """Reads recorded answers from cassettes/."""

    def __init__(self, fallback=None):
        self.fallback = fallback

    def _load(self, prompt, params):
        path = cassette_path(prompt, params)
        if not path.exists():
            raise CassetteMissing(f"no fixture for {path.name}; run ./run.sh record")
        return json.loads(path.read_text(encoding="utf-8"))["text"]

    def complete(self, prompt, params):
        try:
            return self._load(prompt, params)
        except CassetteMissing as e:
            if self.fallback is None:
                raise
            # A stale cassette (e.g. after a prompt tweak) shouldn't sink the whole
            # run; re-record just that one and keep going.
            log.warning("%s -- re-recording this one", e)
            return self.fallback.complete(prompt, params)
