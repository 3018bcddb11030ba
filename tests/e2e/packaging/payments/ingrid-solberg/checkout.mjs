// checkout.mjs
//
// chargeWithRetry(amount) charges once, however many attempts it takes.
// The key is made once per call (the draft made one per attempt, so each
// retry looked like a new payment to the gateway).

const GATEWAY = process.env.GATEWAY_URL ?? "http://localhost:8099";

const RETRY = { retries: 3, baseMs: 100, factor: 2, timeoutMs: 3000 };

export class ChargeError extends Error {
  constructor(message, { status, retryable, cause } = {}) {
    super(message, { cause });
    this.name = "ChargeError";
    this.status = status;
    this.retryable = retryable;
  }
}

async function sendCharge(amount, idempotencyKey) {
  let res;
  try {
    res = await fetch(`${GATEWAY}/charge`, {
      method: "POST",
      headers: { "content-type": "application/json", "idempotency-key": idempotencyKey },
      body: JSON.stringify({ amount, idempotencyKey }),
      signal: AbortSignal.timeout(RETRY.timeoutMs),
    });
  } catch (cause) {
    throw new ChargeError(`no answer from the gateway (${cause.name})`, { retryable: true, cause });
  }
  if (res.ok) return res.json();
  const retryable = res.status >= 500 || res.status === 429 || res.status === 409;
  throw new ChargeError(`gateway answered ${res.status}`, { status: res.status, retryable });
}

async function withRetry(fn, { retries, baseMs, factor }) {
  for (let attempt = 0; ; attempt++) {
    try {
      return await fn(attempt);
    } catch (err) {
      if (!err.retryable || attempt === retries) throw err;
      await new Promise((r) => setTimeout(r, baseMs * factor ** attempt));
    }
  }
}

export async function chargeWithRetry(amount) {
  const idempotencyKey = crypto.randomUUID();
  return withRetry(() => sendCharge(amount, idempotencyKey), RETRY);
}
