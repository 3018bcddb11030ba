// checkout.mjs: chargeWithRetry(amount) for the payment gateway.
const GATEWAY_URL = process.env.GATEWAY_URL || "http://localhost:8099";

const MAX_ATTEMPTS = 4; // first try + 3 retries
const BACKOFF = [250, 500, 1000]; // ms before retry 1, 2, 3
const ATTEMPT_TIMEOUT = 3000; // ms

export async function chargeWithRetry(amount) {
  // Same key on every attempt of this charge: the gateway then treats the retries
  // as one payment and never charges twice for it.
  const idempotencyKey = crypto.randomUUID();
  const errors = [];

  for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
    try {
      const res = await fetch(`${GATEWAY_URL}/charge`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ amount, idempotencyKey }),
        signal: AbortSignal.timeout(ATTEMPT_TIMEOUT),
      });
      const body = await res.json().catch(() => null);
      if (res.ok) return body;
      if (res.status !== 503) {
        // 4xx: retrying will not help
        const err = new Error(`charge rejected: HTTP ${res.status}${body?.error ? ` ${body.error}` : ""}`);
        err.status = res.status;
        err.final = true;
        throw err;
      }
      errors.push(`attempt ${attempt}: HTTP 503`);
    } catch (err) {
      if (err.final) throw err;
      errors.push(`attempt ${attempt}: ${err.message}`);
    }
    if (attempt < MAX_ATTEMPTS) await new Promise((r) => setTimeout(r, BACKOFF[attempt - 1]));
  }

  throw new Error(`charge failed, gave up after ${MAX_ATTEMPTS} attempts (${errors.join("; ")})`);
}
