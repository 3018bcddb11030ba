// checkout.mjs: charge through the payment gateway, retrying transient failures.
//
// Changes from the assistant's draft (see NOTE.md):
//  - the idempotency key is generated once per charge, before the loop, and
//    sent on every attempt (body and Idempotency-Key header);
//  - 3 retries after the first attempt (the draft made 3 attempts in total);
//  - backoff doubles: 100, 200, 400 ms;
//  - only 5xx/429/409 and network errors are retried; other 4xx are final;
//  - each attempt times out after 3 s.

const GATEWAY = process.env.GATEWAY_URL ?? "http://localhost:8099";

export async function chargeWithRetry(amount, retries = 3) {
  const idempotencyKey = crypto.randomUUID();
  let reason;
  for (let i = 0; i <= retries; i++) {
    if (i > 0) await new Promise((r) => setTimeout(r, 100 * 2 ** (i - 1)));
    let res;
    try {
      res = await fetch(`${GATEWAY}/charge`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "idempotency-key": idempotencyKey,
        },
        body: JSON.stringify({
          amount,
          idempotencyKey,
        }),
        signal: AbortSignal.timeout(3000),
      });
    } catch (err) {
      reason = err.message;
      continue;
    }
    if (res.ok) return res.json();
    reason = `HTTP ${res.status}`;
    if (res.status < 500 && res.status !== 429 && res.status !== 409) break;
  }
  throw new Error(`charge failed (${reason})`);
}
