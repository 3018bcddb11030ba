// Payment client for the gateway stub.
//
// chargeWithRetry(amount) makes one payment. Transient failures (503 and
// friends, timeouts, dropped connections) are retried up to 3 times with
// exponential backoff; every attempt sends the same idempotency key, so a retry
// of a request the gateway did process is not charged again.

const gatewayUrl = () => process.env.GATEWAY_URL ?? "http://localhost:8099";

export const RETRY_DELAYS_MS = [150, 300, 600];
const TIMEOUT_MS = 4000;

const isTransient = (status) => status === 408 || status === 409 || status === 429 || status >= 500;
const wait = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

export async function chargeWithRetry(amount) {
  const idempotencyKey = crypto.randomUUID();
  const errors = [];

  for (let attempt = 0; attempt <= RETRY_DELAYS_MS.length; attempt++) {
    if (attempt > 0) await wait(RETRY_DELAYS_MS[attempt - 1]);

    let response;
    try {
      response = await fetch(`${gatewayUrl()}/charge`, {
        method: "POST",
        headers: { "content-type": "application/json", "idempotency-key": idempotencyKey },
        body: JSON.stringify({ amount, idempotencyKey }),
        signal: AbortSignal.timeout(TIMEOUT_MS),
      });
    } catch (err) {
      errors.push(err.cause?.code ?? err.name);
      continue; // unknown outcome: retry with the same key
    }

    if (response.ok) return response.json();

    errors.push(String(response.status));
    if (!isTransient(response.status)) break;
  }

  throw new Error(`payment of ${amount} not made (attempts: ${errors.join(", ")})`);
}
