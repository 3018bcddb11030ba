// checkout.mjs: charge a payment through the gateway, retrying transient failures.
import axios from "axios";

const gateway = axios.create({
  baseURL: process.env.GATEWAY_URL ?? "http://localhost:8099",
  timeout: 3000,
});

const MAX_RETRIES = 3;
const backoffMs = (retry) => 200 * 2 ** retry; // 200, 400, 800

function isRetryable(err) {
  // no response at all (timeout, reset): the charge may have gone through, so retry with the same key
  if (!err.response) return true;
  const { status } = err.response;
  return status === 429 || status >= 500;
}

export async function chargeWithRetry(amount) {
  const idempotencyKey = crypto.randomUUID();
  for (let retry = 0; ; retry++) {
    try {
      const { data } = await gateway.post(
        "/charge",
        { amount, idempotencyKey },
        { headers: { "Idempotency-Key": idempotencyKey } },
      );
      return data;
    } catch (err) {
      if (retry >= MAX_RETRIES || !isRetryable(err)) {
        throw new Error(`charge failed after ${retry + 1} attempt(s): ${err.message}`, { cause: err });
      }
      await new Promise((r) => setTimeout(r, backoffMs(retry)));
    }
  }
}
