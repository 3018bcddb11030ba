// checkout.mjs
//
// chargeWithRetry(amount): POST /charge, retry 503s (up to 3 retries, exponential
// backoff with a little jitter), one idempotency key for the whole call.

const RETRIES = 3;
const BACKOFF_MS = 150;
const REQUEST_TIMEOUT_MS = 4000;

function gatewayUrl() {
  return process.env.GATEWAY_URL ?? "http://localhost:8099";
}

function delay(attempt) {
  const ms = BACKOFF_MS * 2 ** attempt + Math.floor(Math.random() * 50);
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export async function chargeWithRetry(amount) {
  // Generated once, before the first attempt. A fresh key per attempt (like the
  // draft did) would let the gateway charge the same order twice.
  const idempotencyKey = crypto.randomUUID();
  const url = `${gatewayUrl()}/charge`;

  for (let attempt = 0; ; attempt++) {
    let response;
    let failure;
    try {
      response = await fetch(url, {
        method: "POST",
        headers: {
          "Content-Type": "application/json",
          "Idempotency-Key": idempotencyKey,
        },
        body: JSON.stringify({ amount, idempotencyKey }),
        signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
      });
    } catch (error) {
      failure = error; // network error or timeout: unknown outcome, safe to retry with the same key
    }

    if (response) {
      const data = await response.json().catch(() => ({}));
      if (response.ok) return data;
      const retryable = response.status === 503 || response.status === 409;
      if (!retryable) {
        throw new Error(`gateway refused the charge (${response.status}): ${data.error ?? "unknown error"}`);
      }
      failure = new Error(`gateway answered ${response.status}`);
    }

    if (attempt === RETRIES) {
      throw new Error(`giving up after ${attempt + 1} attempts: ${failure.message}`, { cause: failure });
    }
    await delay(attempt);
  }
}
