// checkout.mjs: charge a payment through the gateway, retrying transient failures.
const GATEWAY = process.env.GATEWAY_URL ?? "http://localhost:8099";

const MAX_ATTEMPTS = 4; // the first try + 3 retries
const BASE_DELAY_MS = 100;
const ATTEMPT_TIMEOUT_MS = 2500;

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// exponential backoff with "equal jitter": half of the delay fixed, half random
function backoff(retry) {
  const delay = BASE_DELAY_MS * 2 ** retry;
  return delay / 2 + Math.random() * (delay / 2);
}

const isTransient = (status) => status === 429 || status >= 500;

export async function chargeWithRetry(amount) {
  // one key for the whole charge, so the gateway can tell a retry from a new payment
  const idempotencyKey = crypto.randomUUID();
  let lastError;

  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    if (attempt > 0) await sleep(backoff(attempt - 1));
    try {
      const res = await fetch(`${GATEWAY}/charge`, {
        method: "POST",
        headers: { "content-type": "application/json", "idempotency-key": idempotencyKey },
        body: JSON.stringify({ amount, idempotencyKey }),
        signal: AbortSignal.timeout(ATTEMPT_TIMEOUT_MS),
      });
      if (res.ok) return await res.json();
      lastError = new Error(`gateway returned ${res.status}`);
      if (!isTransient(res.status)) break;
    } catch (err) {
      lastError = err; // timeout or network error: retried with the same key
    }
  }
  throw new Error(`charge of ${amount} failed: ${lastError.message}`, { cause: lastError });
}
