// checkout.mjs
//
// chargeWithRetry(amount): POST /charge, retrying transient failures.
// The idempotency key is created once per call and reused on every retry:
// the draft made a new one per attempt, which turns each retry into a new
// payment as far as the gateway can tell.

const GATEWAY = process.env.GATEWAY_URL ?? "http://localhost:8099";
const MAX_RETRIES = 3;
const BASE_DELAY = 100;
const JITTER = 25;
const REQUEST_TIMEOUT = 2000;

function backoff(retry) {
  // 100, 200, 400 ms, plus a little jitter so that many clients don't retry in lockstep
  return BASE_DELAY * 2 ** retry + Math.floor(Math.random() * JITTER);
}

function retryable(status) {
  return status === 429 || status === 409 || (status >= 500 && status <= 599);
}

export async function chargeWithRetry(amount) {
  const idempotencyKey = crypto.randomUUID();
  let last;
  for (let retry = 0; retry <= MAX_RETRIES; retry++) {
    if (retry > 0) await new Promise((r) => setTimeout(r, backoff(retry - 1)));
    try {
      const res = await fetch(`${GATEWAY}/charge`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ amount, idempotencyKey }),
        signal: AbortSignal.timeout(REQUEST_TIMEOUT),
      });
      if (res.ok) return await res.json();
      last = new Error(`gateway returned ${res.status}`);
      last.status = res.status;
      if (!retryable(res.status)) throw last;
    } catch (err) {
      if (err === last) throw err; // a final answer from the gateway
      last = err; // network error or timeout: try again with the same key
    }
  }
  throw new Error(`charge failed after ${MAX_RETRIES + 1} attempts: ${last.message}`, { cause: last });
}
