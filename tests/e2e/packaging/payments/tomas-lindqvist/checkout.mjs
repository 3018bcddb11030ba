// checkout.mjs
//
// chargeWithRetry(amount): POST /charge, retrying what is worth retrying.
//
// The idempotency key identifies the *payment*, not the HTTP request, so it is
// generated once per chargeWithRetry() call and reused on every attempt. The
// model's draft generated it per attempt, which turns "the gateway might see
// this request twice" into "the customer might pay twice".

const BASE_URL = process.env.GATEWAY_URL ?? "http://localhost:8099";

const ATTEMPTS = 4;
const TIMEOUT_MS = 2000;

function backoff(retry) {
  // 150, 300, 600 ms, plus up to 30 ms jitter so clients don't retry in lockstep
  return 150 * 2 ** retry + Math.floor(Math.random() * 30);
}

function retryable(status) {
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

export async function chargeWithRetry(amount) {
  const payload = JSON.stringify({ amount, idempotencyKey: crypto.randomUUID() });
  const errors = [];

  for (let i = 0; i < ATTEMPTS; i++) {
    if (i > 0) await new Promise((r) => setTimeout(r, backoff(i - 1)));

    let res;
    try {
      res = await fetch(new URL("/charge", BASE_URL), {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: payload, // same bytes, same key, every attempt
        signal: AbortSignal.timeout(TIMEOUT_MS),
      });
    } catch (err) {
      errors.push(err);
      continue;
    }

    if (res.ok) return res.json();

    const err = new Error(`POST /charge -> ${res.status}`);
    err.status = res.status;
    errors.push(err);
    if (!retryable(res.status)) break;
  }

  throw new AggregateError(errors, `charge not completed after ${errors.length} attempt(s)`);
}
