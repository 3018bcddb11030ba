// checkout.mjs: charge a payment through the gateway, retrying transient failures.
const GATEWAY = process.env.GATEWAY_URL ?? "http://localhost:8099";

export async function chargeWithRetry(amount, attempts = 3) {
  // One key for the whole charge: every retry must be recognisable as the same payment.
  const idempotencyKey = crypto.randomUUID();
  for (let i = 0; i < attempts; i++) {
    const res = await fetch(`${GATEWAY}/charge`, {
      method: "POST",
      headers: { "content-type": "application/json", "idempotency-key": idempotencyKey },
      body: JSON.stringify({
        amount,
        idempotencyKey,
      }),
    });
    if (res.ok) return res.json();
    if (res.status >= 400 && res.status < 500 && res.status !== 409 && res.status !== 429) {
      throw new Error(`charge refused: ${res.status}`);
    }
    if (i < attempts - 1) await new Promise((r) => setTimeout(r, 50 * 2 ** i));
  }
  throw new Error("charge failed after " + attempts + " attempts");
}
