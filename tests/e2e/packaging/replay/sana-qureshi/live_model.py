"""Live calls through the openai SDK. Only imported by `record`."""

from __future__ import annotations

import logging
import time
from typing import Any

import openai
from tenacity import (
    RetryCallState,
    Retrying,
    retry_if_exception_type,
    stop_after_attempt,
    wait_exponential,
)

log = logging.getLogger("triage.live")

CALL_LIMIT = 40
ATTEMPTS_PER_REQUEST = 3

RETRYABLE = (
    openai.APIConnectionError,
    openai.RateLimitError,
    openai.InternalServerError,
    openai.ConflictError,
)


class RecordAborted(RuntimeError):
    pass


class LiveModel:
    def __init__(self, model: str) -> None:
        # max_retries=0: tenacity does the retrying, so every HTTP request passes through _call()
        # and is counted. (The SDK default is 2 hidden retries per request.)
        try:
            self._client = openai.OpenAI(max_retries=0, timeout=20.0)
        except openai.OpenAIError as exc:
            raise RecordAborted(f"cannot set up the OpenAI client: {exc}") from None
        self.model = model
        self.calls = 0

    def _call(self, request: dict[str, Any]) -> dict[str, Any]:
        if self.calls >= CALL_LIMIT:
            raise RecordAborted(f"call limit reached ({CALL_LIMIT} model calls this run)")
        self.calls += 1
        started = time.monotonic()
        completion = self._client.chat.completions.create(model=self.model, **request)
        log.info(
            "call %d ok in %.0f ms, model=%s usage=%s",
            self.calls,
            (time.monotonic() - started) * 1000,
            completion.model,
            completion.usage.to_dict() if completion.usage else None,
        )
        return completion.to_dict()

    @staticmethod
    def _before_sleep(state: RetryCallState) -> None:
        log.warning("attempt %d failed: %r; retrying", state.attempt_number, state.outcome.exception())

    def complete(self, ticket_id: str, request: dict[str, Any]) -> dict[str, Any]:
        retrying = Retrying(
            retry=retry_if_exception_type(RETRYABLE),
            stop=stop_after_attempt(ATTEMPTS_PER_REQUEST),
            wait=wait_exponential(multiplier=0.2, min=0.2, max=1.0),
            before_sleep=self._before_sleep,
            reraise=True,
        )
        try:
            return retrying(self._call, request)
        except RETRYABLE as exc:
            raise RecordAborted(
                f"{ticket_id}: gave up after {ATTEMPTS_PER_REQUEST} attempts: {type(exc).__name__}: {exc}"
            ) from None
        except openai.APIStatusError as exc:
            raise RecordAborted(f"{ticket_id}: HTTP {exc.status_code} from the endpoint: {exc.message}") from None
