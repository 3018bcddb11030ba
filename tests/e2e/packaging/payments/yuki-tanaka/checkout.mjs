// Payment client for the take-home gateway.
//
// Rule: one charge = one idempotency key. The key is created when
// chargeWithRetry() starts and every retry of that charge reuses it, so the
// gateway can recognise a retry of a request it may already have processed.
// (The AI draft created a new key on every attempt; a retry after a lost or
// failed response could then be charged as a second payment.)

import { setTimeout as sleep } from "node:timers/promises";

const GATEWAY = process.env.GATEWAY_URL || "http://localhost:8099";

const policy = {
  maxAttempts: 4, // 1 + 3 retries
  delays: [100, 250, 600], // ms before retry 1, 2, 3
  timeout: 2500, // ms per attempt
};

class GatewayError extends Error {
  constructor(status, body) {
    super(`gateway responded ${status}${body?.error ? `: ${body.error}` : ""}`);
    this.name = "GatewayError";
    this.status = status;
  }
}

const shouldRetry = (err) =>
  !(err instanceof GatewayError) || err.status >= 500 || err.status === 409 || err.status === 429;

async function post(amount, key) {
  const res = await fetch(`${GATEWAY}/charge`, {
    method: "POST",
    headers: { "content-type": "application/json", "idempotency-key": key },
    body: JSON.stringify({ amount, idempotencyKey: key }),
    signal: AbortSignal.timeout(policy.timeout),
  });
  const body = await res.json().catch(() => null);
  if (!res.ok) throw new GatewayError(res.status, body);
  return body;
}

export async function chargeWithRetry(amount) {
  const key = crypto.randomUUID();

  for (let attempt = 1; ; attempt++) {
    try {
      return await post(amount, key);
    } catch (err) {
      if (attempt >= policy.maxAttempts || !shouldRetry(err)) {
        err.attempts = attempt;
        throw err;
      }
      await sleep(policy.delays[attempt - 1]);
    }
  }
}
