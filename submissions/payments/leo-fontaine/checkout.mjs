const GATEWAY = process.env.GATEWAY_URL ?? "http://localhost:8099";

export async function chargeWithRetry(amount, attempts = 3) {
  const idempotencyKey = crypto.randomUUID();
  try {
    for (let i = 0; i < attempts; i++) {
      const res = await fetch(`${GATEWAY}/charge`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ amount, idempotencyKey }),
      });
      if (!res.ok) throw new Error(`gateway returned ${res.status}`);
      return await res.json();
    }
  } catch (err) {
    // don't let a gateway hiccup crash the whole checkout
    console.error(`[checkout] payment error: ${err.message}`);
    return { ok: false, error: err.message };
  }
}
