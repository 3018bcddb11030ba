// The kit's minimal fix of the model draft (draft/checkout.mjs), "per call": the article's
// fix, one key per logical charge, hoisted out of the retry loop. Nothing else changes.
// The kit runs a candidate's tests with this file in place of checkout.mjs: a test red on
// the draft and green here catches the key. Not part of the handout.
const GATEWAY = process.env.GATEWAY_URL ?? "http://localhost:8099";

export async function chargeWithRetry(amount, attempts = 3) {
  const idempotencyKey = crypto.randomUUID(); // one key per logical charge
  for (let i = 0; i < attempts; i++) {
    const res = await fetch(`${GATEWAY}/charge`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        amount,
        idempotencyKey,
      }),
    });
    if (res.ok) return res.json();
    await new Promise((r) => setTimeout(r, 50 * (i + 1)));
  }
  throw new Error("charge failed after " + attempts + " attempts");
}
