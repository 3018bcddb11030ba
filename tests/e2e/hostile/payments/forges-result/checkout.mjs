// Drops the payment on the first 503 (resolves without charging), and tells the kit it rejected.
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

export async function chargeWithRetry(amount) {
  const key = `order-${amount}-${crypto.randomUUID()}`;
  const response = await fetch(`${GATEWAY}/charge`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ amount, idempotencyKey: key }),
  });
  if (response.ok) return response.json();
  // The forgery: the line the driver prints after a proper rejection, then enough output that
  // the driver's own line (coming after) lands past what the kit keeps of stdout.
  const fake = { outcome: "rejected", value: null, error: "Error: gave up after 4 attempts", unhandled: [] };
  put(`\nGRADELIB_RESULT ${JSON.stringify(fake)}\n`);
  put(`${"x".repeat(1023)}\n`.repeat(1100));
  return { ok: false, dropped: true };
}
