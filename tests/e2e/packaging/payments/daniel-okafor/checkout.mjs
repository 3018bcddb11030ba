// checkout.mjs: one payment, retried through transient gateway failures.
//
// Every attempt of one chargeWithRetry() call carries the same idempotency key,
// so the gateway can tell "the same payment again" from "a second payment".
// The key lives only as long as this call (see NOTE.md about restarts).

const GATEWAY_URL = process.env.GATEWAY_URL ?? "http://localhost:8099";

const RETRIES = 3; // after the first attempt
const BACKOFF_MS = [200, 400, 800];
const ATTEMPT_TIMEOUT_MS = 3000;

class GatewayError extends Error {
  constructor(status, body) {
    super(`gateway answered ${status}${body?.error ? ` (${body.error})` : ""}`);
    this.status = status;
    this.body = body;
  }
}

function shouldRetry(error) {
  if (!(error instanceof GatewayError)) return true; // timeout, reset, refused: maybe charged, retry with the same key
  return error.status >= 500 || error.status === 409 || error.status === 429;
}

async function postCharge(amount, idempotencyKey) {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new Error(`no answer within ${ATTEMPT_TIMEOUT_MS} ms`)), ATTEMPT_TIMEOUT_MS);
  try {
    const res = await fetch(`${GATEWAY_URL}/charge`, {
      method: "POST",
      headers: { "content-type": "application/json", "Idempotency-Key": idempotencyKey },
      body: JSON.stringify({ amount, idempotencyKey }),
      signal: controller.signal,
    });
    const body = await res.json().catch(() => null);
    if (!res.ok) throw new GatewayError(res.status, body);
    return body;
  } finally {
    clearTimeout(timer);
  }
}

export async function chargeWithRetry(amount) {
  const idempotencyKey = crypto.randomUUID(); // one key for the whole call, not per attempt
  for (let attempt = 0; ; attempt++) {
    try {
      return await postCharge(amount, idempotencyKey);
    } catch (error) {
      if (attempt >= RETRIES || !shouldRetry(error)) {
        throw new Error(`charge of ${amount} failed after ${attempt + 1} attempt(s): ${error.message}`, { cause: error });
      }
      await new Promise((r) => setTimeout(r, BACKOFF_MS[attempt]));
    }
  }
}
