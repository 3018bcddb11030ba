// checkout.mjs: a payment client for the gateway.
// The retry loop and the key handling live in the workspace package packages/idempotency.
import { exponential, retryWithKey, RetryableError } from '@freya/idempotency';

const gatewayUrl = () => process.env.GATEWAY_URL ?? 'http://localhost:8099';
const TIMEOUT_MS = 2500;

async function postCharge(amount, idempotencyKey) {
  let res;
  try {
    res = await fetch(`${gatewayUrl()}/charge`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'Idempotency-Key': idempotencyKey },
      body: JSON.stringify({ amount, idempotencyKey }),
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
  } catch (err) {
    // Timeout or dropped connection: the charge may or may not exist. Retrying is only
    // safe because the retry carries the same key.
    throw new RetryableError(`no answer from the gateway (${err.name})`, { cause: err });
  }
  const body = await res.json().catch(() => null);
  if (res.ok) return body;
  const detail = `gateway answered ${res.status}${body?.error ? `: ${body.error}` : ''}`;
  if (res.status >= 500 || res.status === 409 || res.status === 429) throw new RetryableError(detail);
  throw new Error(`charge refused, ${detail}`);
}

/** Charges `amount` once: up to 3 retries (100, 200, 400 ms apart), all with the same key. */
export async function chargeWithRetry(amount) {
  return retryWithKey((key) => postCharge(amount, key), { retries: 3, delay: exponential({ baseMs: 100 }) });
}
