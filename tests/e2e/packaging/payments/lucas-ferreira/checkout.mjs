// checkout.mjs — payment client for the gateway stub.
//
// The gateway dedupes on the Idempotency-Key header (gateway/README.md: "The
// same value can be sent as an Idempotency-Key request header"), so that is
// where the key goes, like with Stripe. One key per chargeWithRetry() call.

const GATEWAY_URL = process.env.GATEWAY_URL ?? "http://localhost:8099";

const MAX_ATTEMPTS = 4;
const FIRST_DELAY_MS = 120;
const TIMEOUT_MS = 2500;

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// Status codes where trying again can help. Anything else is the gateway's final word.
const TRANSIENT = new Set([409, 425, 429, 500, 502, 503, 504]);

export async function chargeWithRetry(amount) {
  const idempotencyKey = crypto.randomUUID();
  let delay = FIRST_DELAY_MS;
  let failure;

  for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
    try {
      const response = await fetch(`${GATEWAY_URL}/charge`, {
        method: "POST",
        headers: { "Content-Type": "application/json", "Idempotency-Key": idempotencyKey },
        body: JSON.stringify({ amount }),
        signal: AbortSignal.timeout(TIMEOUT_MS),
      });
      if (response.ok) return await response.json();
      failure = new Error(`gateway responded ${response.status} on attempt ${attempt}`);
      if (!TRANSIENT.has(response.status)) break;
    } catch (error) {
      failure = error; // timeout / connection reset: outcome unknown, same key again
    }
    if (attempt < MAX_ATTEMPTS) {
      await sleep(delay);
      delay *= 2;
    }
  }
  throw failure;
}
