const GATEWAY = process.env.GATEWAY_URL ?? "http://localhost:8099";

// One key for the whole charge: every retry below is the *same* payment as far as
// the gateway is concerned, so it can drop the repeats.
export async function chargeWithRetry(amount, attempts = 3) {
  const idempotencyKey = crypto.randomUUID();
  for (let i = 0; i < attempts; i++) {
    const res = await fetch(`${GATEWAY}/charge`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ amount, idempotencyKey }),
    });
    if (res.ok) return res.json();
    await new Promise((r) => setTimeout(r, 50 * (i + 1)));
  }
  throw new Error("charge failed after " + attempts + " attempts");
}
