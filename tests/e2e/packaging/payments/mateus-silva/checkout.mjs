// Payment client. One idempotency key per call of chargeWithRetry, shared by all its attempts.
const MAX_RETRIES = 3;
const BACKOFF_BASE_MS = 100;
const BACKOFF_CAP_MS = 2000;
const REQUEST_TIMEOUT_MS = 2000;

const RETRYABLE_STATUS = new Set([408, 409, 425, 429, 500, 502, 503, 504]);

function gateway() {
  return process.env.GATEWAY_URL || "http://localhost:8099";
}

// Full jitter (AWS architecture blog): sleep a random time in [0, min(cap, base * 2^n)].
function backoffDelay(retry) {
  return Math.random() * Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** retry);
}

export class ChargeError extends Error {
  constructor(message, { status, attempts } = {}) {
    super(message);
    this.name = "ChargeError";
    this.status = status;
    this.attempts = attempts;
  }
}

export async function chargeWithRetry(amount) {
  const idempotencyKey = crypto.randomUUID(); // before the loop: the retries are the same payment
  let lastStatus;
  for (let attempt = 1; attempt <= MAX_RETRIES + 1; attempt++) {
    let response;
    try {
      response = await fetch(`${gateway()}/charge`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ amount, idempotencyKey }),
        signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
      });
    } catch {
      lastStatus = undefined; // timed out or no connection: retry, same key
    }
    if (response) {
      if (response.ok) return response.json();
      lastStatus = response.status;
      if (!RETRYABLE_STATUS.has(response.status)) {
        throw new ChargeError(`gateway refused the charge (HTTP ${response.status})`, { status: response.status, attempts: attempt });
      }
    }
    if (attempt <= MAX_RETRIES) await new Promise((resolve) => setTimeout(resolve, backoffDelay(attempt - 1)));
  }
  throw new ChargeError(`gave up after ${MAX_RETRIES + 1} attempts (last: ${lastStatus ?? "no response"})`, {
    status: lastStatus,
    attempts: MAX_RETRIES + 1,
  });
}
