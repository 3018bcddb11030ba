// checkout.mjs: charge a payment through the gateway, retrying transient failures.
const GATEWAY = process.env.GATEWAY_URL ?? "http://localhost:8099";

export async function chargeWithRetry(amount, attempts = 3) {
  for (let i = 0; i < attempts; i++) {
    const res = await fetch(`${GATEWAY}/charge`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        amount,
        idempotencyKey: crypto.randomUUID(),
      }),
    });
    if (res.ok) return res.json();
    await new Promise((r) => setTimeout(r, 50 * (i + 1)));
  }
  throw new Error("charge failed after " + attempts + " attempts");
}
