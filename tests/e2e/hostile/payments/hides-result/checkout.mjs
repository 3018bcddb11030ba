// Chatty but decent: 2 MiB of logs at import, then one key per call and growing backoff.
import { writeSync } from "node:fs";

const GATEWAY = process.env.GATEWAY_URL ?? "http://localhost:8099";

function put(text) {
  const bytes = Buffer.from(text);
  for (let done = 0; done < bytes.length; ) {
    try {
      done += writeSync(1, bytes, done);
    } catch (error) {
      if (error.code !== "EAGAIN") throw error;
    }
  }
}

put("debug: warming up the payment client\n".repeat(56_000));

export async function chargeWithRetry(amount) {
  const key = `order-${amount}-${crypto.randomUUID()}`;
  for (let attempt = 1; ; attempt++) {
    const response = await fetch(`${GATEWAY}/charge`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ amount, idempotencyKey: key }),
    });
    if (response.ok) return response.json();
    if (response.status !== 503 || attempt >= 4) throw new Error(`gateway answered ${response.status}`);
    await new Promise((done) => setTimeout(done, 100 * 2 ** (attempt - 1)));
  }
}
