"""The only module that talks to the model. Imported by record mode only."""

import time

import openai

MAX_CALLS = 40            # per record run, every HTTP attempt counts
BACKOFF_S = (0.25, 0.5)   # two retries per ticket, then give up
TIMEOUT_S = 20.0

RETRYABLE = (openai.APIConnectionError, openai.RateLimitError, openai.InternalServerError)


class GiveUp(Exception):
    pass


class LiveModel:
    def __init__(self, model, log):
        # Base URL and key come from OPENAI_BASE_URL / OPENAI_API_KEY.
        # The SDK's own retries are off so that every request goes through the budget below.
        try:
            self.client = openai.OpenAI(max_retries=0, timeout=TIMEOUT_S)
        except openai.OpenAIError as exc:
            raise GiveUp(str(exc)) from None
        self.model = model
        self.log = log
        self.calls = 0

    def complete(self, ticket_id, request):
        for attempt in range(1, len(BACKOFF_S) + 2):
            if self.calls >= MAX_CALLS:
                raise GiveUp(f"reached the budget of {MAX_CALLS} model calls; stopping")
            self.calls += 1
            started = time.monotonic()
            try:
                completion = self.client.chat.completions.create(model=self.model, **request)
            except RETRYABLE as exc:
                error = f"{type(exc).__name__}: {exc}"
            except openai.APIStatusError as exc:
                raise GiveUp(f"ticket {ticket_id}: HTTP {exc.status_code} from the model endpoint") from None
            else:
                self.log(
                    ticket=ticket_id,
                    attempt=attempt,
                    latency_ms=round((time.monotonic() - started) * 1000),
                    model=completion.model,
                    usage=completion.usage.to_dict() if completion.usage else None,
                )
                return completion.to_dict()
            self.log(ticket=ticket_id, attempt=attempt, error=error)
            if attempt <= len(BACKOFF_S):
                time.sleep(BACKOFF_S[attempt - 1])
        raise GiveUp(f"ticket {ticket_id}: model call failed {attempt} times ({error})")
