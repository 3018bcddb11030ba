// checkout.mjs: charge one payment through the gateway, retrying transient failures.
//
// The idempotency key is made once per chargeWithRetry() call and sent with every
// attempt, so a retry is the same payment to the gateway, never a second one.

const GATEWAY = process.env.GATEWAY_URL ?? "http://localhost:8099";

const MAX_RETRIES = 3; // on top of the first attempt
const BASE_DELAY_MS = 100; // 100, 200, 400
const TIMEOUT_MS = 5000; // per attempt

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

export async function chargeWithRetry(amount) {
  const idempotencyKey = crypto.randomUUID();
  let lastError;

  for (let attempt = 0; attempt <= MAX_RETRIES; attempt++) {
    if (attempt > 0) await sleep(BASE_DELAY_MS * 2 ** (attempt - 1));

    let res;
    try {
      res = await fetch(`${GATEWAY}/charge`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ amount, idempotencyKey }),
        signal: AbortSignal.timeout(TIMEOUT_MS),
      });
    } catch (err) {
      // No answer (refused, reset, timed out). The gateway may or may not have
      // charged, which is exactly what the key is for: retry with the same one.
      lastError = err;
      continue;
    }

    const body = await res.json().catch(() => null);
    if (res.ok) return body;
    if (res.status !== 503) {
      throw new Error(`charge refused with ${res.status}: ${body?.error ?? "no details"}`);
    }
    lastError = new Error(`gateway unavailable (503)`);
  }

  throw new Error(`charge of ${amount} failed after ${MAX_RETRIES + 1} attempts: ${lastError.message}`, {
    cause: lastError,
  });
}
