// checkout.mjs: charge a payment, retrying transient gateway failures, never twice.
//
// The idempotency key for a charge is written to a small file in the system's
// temp folder (os.tmpdir()/checkout-keys/) *before* the first request. If this
// process is killed while a request is in flight, the next process charging the
// same amount picks the key up again, and the gateway replays the first result
// instead of charging a second time. The file is deleted once the gateway gives a
// final answer.
import { mkdir, readFile, rename, unlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";

const GATEWAY_URL = process.env.GATEWAY_URL ?? "http://localhost:8099";
const ATTEMPTS = 4;
const DELAYS_MS = [100, 200, 400];
const TIMEOUT_MS = 3000;

// tmpdir() is read on every call, so TMPDIR set after import still counts.
const keysDir = () => path.join(tmpdir(), "checkout-keys");
const keyFile = (amount) => path.join(keysDir(), `charge-${amount}.key`);

async function loadOrCreateKey(amount) {
  try {
    const saved = (await readFile(keyFile(amount), "utf8")).trim();
    if (saved) return saved;
  } catch (err) {
    if (err.code !== "ENOENT") throw err;
  }
  const key = crypto.randomUUID();
  await mkdir(keysDir(), { recursive: true, mode: 0o700 });
  const tmp = `${keyFile(amount)}.${process.pid}`;
  await writeFile(tmp, key + "\n", { mode: 0o600 });
  await rename(tmp, keyFile(amount)); // atomic: another process never sees half a key
  return key;
}

async function forgetKey(amount) {
  await unlink(keyFile(amount)).catch((err) => {
    if (err.code !== "ENOENT") throw err;
  });
}

export async function chargeWithRetry(amount) {
  const idempotencyKey = await loadOrCreateKey(amount);
  let lastError;
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    if (attempt > 0) await new Promise((r) => setTimeout(r, DELAYS_MS[attempt - 1]));
    let res;
    try {
      res = await fetch(`${GATEWAY_URL}/charge`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ amount, idempotencyKey }),
        signal: AbortSignal.timeout(TIMEOUT_MS),
      });
    } catch (err) {
      lastError = err; // timeout or network error: maybe charged, so keep the key and retry
      continue;
    }
    if (res.ok) {
      const result = await res.json();
      await forgetKey(amount);
      return result;
    }
    lastError = new Error(`gateway answered ${res.status}`);
    if (res.status !== 409 && res.status !== 429 && res.status < 500) {
      await forgetKey(amount); // refused: nothing was charged under this key
      throw lastError;
    }
  }
  // Out of attempts: the key file stays, so the next try for this charge reuses it.
  throw new Error(`charge of ${amount} failed after ${ATTEMPTS} attempts: ${lastError.message}`, { cause: lastError });
}
