// Payment client for the gateway stub.
//
// One call to chargeWithRetry() is one order, so it gets one idempotency key,
// made before the first attempt and sent unchanged with every retry. The draft
// called crypto.randomUUID() inside the loop: every retry was a brand-new
// payment as far as the gateway could tell.

const gatewayUrl = () => process.env.GATEWAY_URL ?? "http://localhost:8099";

const MAX_ATTEMPTS = 4; // the first try + 3 retries
const BACKOFF_MS = [100, 200, 400];
const REQUEST_TIMEOUT_MS = 3000;

const wait = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// 5xx, 429 and 409 ("still processing that key") can go away on their own.
// Any other 4xx is the gateway's answer about this payment and is final.
function isTransient(status) {
  return status >= 500 || status === 429 || status === 409;
}

async function attemptCharge(amount, idempotencyKey) {
  let response;
  try {
    response = await fetch(`${gatewayUrl()}/charge`, {
      method: "POST",
      headers: {
        "Content-Type": "application/json",
        "Idempotency-Key": idempotencyKey,
      },
      body: JSON.stringify({ amount, idempotencyKey }),
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
  } catch (err) {
    // No answer at all (refused, reset, timed out). The charge may or may not
    // have happened, which is exactly why the retry must carry the same key.
    return { ok: false, transient: true, error: err };
  }
  if (response.ok) return { ok: true, body: await response.json() };
  return {
    ok: false,
    transient: isTransient(response.status),
    error: Object.assign(new Error(`gateway returned ${response.status}`), { status: response.status }),
  };
}

export async function chargeWithRetry(amount) {
  const idempotencyKey = crypto.randomUUID(); // once per charge, NOT per attempt

  let last;
  for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
    last = await attemptCharge(amount, idempotencyKey);
    if (last.ok) return last.body;
    if (!last.transient) break;
    if (attempt < MAX_ATTEMPTS) await wait(BACKOFF_MS[attempt - 1]);
  }

  const err = new Error(`charge of ${amount} failed: ${last.error.message}`, { cause: last.error });
  err.status = last.error.status;
  err.idempotencyKey = idempotencyKey;
  throw err;
}
