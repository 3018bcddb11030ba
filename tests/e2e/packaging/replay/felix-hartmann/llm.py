"""The only module that touches the network (openai SDK). Imported by record only."""

import time

import openai

BUDGET = 40        # model calls per record run, retries included
ATTEMPTS = 3       # per ticket: 1 try + 2 retries
BACKOFF = 0.3      # seconds, doubled each retry

TRANSIENT = (
    openai.APIConnectionError,  # includes APITimeoutError
    openai.RateLimitError,
    openai.InternalServerError,
    openai.ConflictError,
)


class RecordFailed(Exception):
    pass


class Caller:
    def __init__(self, model, log):
        # max_retries=0: the SDK would otherwise retry twice on its own, behind the budget's back.
        # OPENAI_BASE_URL / OPENAI_API_KEY are picked up by the SDK from the environment.
        try:
            self.client = openai.OpenAI(max_retries=0, timeout=15.0)
        except openai.OpenAIError as e:
            raise RecordFailed(str(e)) from None
        self.model = model
        self.log = log
        self.calls = 0

    def ask(self, ticket_id, request):
        last = None
        for attempt in range(1, ATTEMPTS + 1):
            if self.calls >= BUDGET:
                raise RecordFailed(f"budget of {BUDGET} model calls spent (at {ticket_id}), stopping")
            self.calls += 1
            t0 = time.monotonic()
            try:
                completion = self.client.chat.completions.create(model=self.model, **request)
            except TRANSIENT as e:
                last = f"{type(e).__name__}: {e}"
                self.log(ticket=ticket_id, attempt=attempt, error=last)
                if attempt < ATTEMPTS:
                    time.sleep(BACKOFF * 2 ** (attempt - 1))
                continue
            except openai.APIStatusError as e:
                raise RecordFailed(f"{ticket_id}: endpoint answered HTTP {e.status_code}") from None
            self.log(
                ticket=ticket_id,
                attempt=attempt,
                ms=round((time.monotonic() - t0) * 1000),
                model=completion.model,
                usage=completion.usage.model_dump() if completion.usage else None,
            )
            return completion.model_dump(mode="json", exclude_unset=True)
        raise RecordFailed(f"{ticket_id}: no answer after {ATTEMPTS} attempts ({last})")
