/**
 * Checkout payment client.
 *
 * chargeWithRetry(amount) -> gateway JSON on success, throws ChargeError otherwise.
 */

const GATEWAY_URL = process.env.GATEWAY_URL ?? "http://localhost:8099";
const MAX_ATTEMPTS = 5;
const REQUEST_TIMEOUT_MS = 5_000;

export class ChargeError extends Error {
  constructor(message, { status, attempts, cause } = {}) {
    super(message, { cause });
    this.name = "ChargeError";
    this.status = status;
    this.attempts = attempts;
  }
}

const isRetryable = (status) => status === 429 || status >= 500;

async function postCharge(payload) {
  return fetch(new URL("/charge", GATEWAY_URL), {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json" },
    body: JSON.stringify(payload),
    signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
  });
}

export async function chargeWithRetry(amount) {
  const payload = { amount, idempotencyKey: crypto.randomUUID() };
  let lastFailure;

  for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
    let res;
    try {
      res = await postCharge(payload);
    } catch (cause) {
      lastFailure = { cause };
      continue;
    }

    if (res.ok) return res.json();
    if (!isRetryable(res.status)) {
      throw new ChargeError(`gateway rejected charge (${res.status})`, {
        status: res.status,
        attempts: attempt,
      });
    }
    lastFailure = { status: res.status };
  }

  throw new ChargeError(`charge failed after ${MAX_ATTEMPTS} attempts`, {
    ...lastFailure,
    attempts: MAX_ATTEMPTS,
  });
}
