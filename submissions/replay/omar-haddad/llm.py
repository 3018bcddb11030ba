"""Two chat clients with the same interface: complete(messages, params) -> reply text."""

import hashlib
import json
import logging
import time
from pathlib import Path

import openai

from settings import settings

log = logging.getLogger(__name__)

CASSETTES = Path("cassettes")


class ModelError(Exception):
    pass


def fingerprint(messages, params):
    blob = json.dumps({"messages": messages, "params": params}, sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()[:24]


def cassette_path(messages, params):
    return CASSETTES / f"{fingerprint(messages, params)}.json"


class OpenAIClient:
    """Calls the API and writes what it got to cassettes/."""

    def __init__(self):
        self.client = openai.OpenAI(
            base_url=settings.base_url,
            api_key=settings.api_key,
            max_retries=0,  # retries are counted below, against max_calls
            timeout=settings.timeout,
        )
        self.calls = 0

    def _create(self, messages, params):
        waits = [*settings.backoff, None]
        for wait in waits:
            if self.calls >= settings.max_calls:
                raise ModelError(f"call budget used up ({settings.max_calls} calls)")
            self.calls += 1
            started = time.monotonic()
            try:
                completion = self.client.chat.completions.create(
                    model=settings.model, messages=messages, **params
                )
            except (openai.APIConnectionError, openai.RateLimitError, openai.InternalServerError) as exc:
                reason = f"{type(exc).__name__}: {exc}"
            except openai.APIStatusError as exc:
                raise ModelError(f"HTTP {exc.status_code} from {settings.base_url}") from None
            else:
                log.info("model=%s latency=%.0fms usage=%s", completion.model,
                         (time.monotonic() - started) * 1000, completion.usage)
                return completion
            if wait is None:
                raise ModelError(f"no answer after {len(waits)} attempts ({reason})")
            log.info("attempt failed (%s), retrying in %ss", reason, wait)
            time.sleep(wait)

    def complete(self, messages, params):
        completion = self._create(messages, params)
        CASSETTES.mkdir(exist_ok=True)
        cassette = {
            "fingerprint": fingerprint(messages, params),
            "messages": messages,
            "params": params,
            "completion": completion.to_dict(),
        }
        cassette_path(messages, params).write_text(
            json.dumps(cassette, indent=2, ensure_ascii=False) + "\n", encoding="utf-8"
        )
        return completion.choices[0].message.content


class CassetteClient:
    """Answers from cassettes/."""

    def __init__(self):
        self._live = None

    def complete(self, messages, params):
        path = cassette_path(messages, params)
        if path.is_file():
            cassette = json.loads(path.read_text(encoding="utf-8"))
            return cassette["completion"]["choices"][0]["message"]["content"]
        # New or edited prompt: fetch just this one instead of failing the whole run.
        log.warning("cassette %s not found, fetching it", path.name)
        if self._live is None:
            self._live = OpenAIClient()
        return self._live.complete(messages, params)

    @property
    def calls(self):
        return self._live.calls if self._live else 0
