// The kit's minimal fix of the model draft (draft/checkout.mjs), "persisted": the strong fix,
// one key per logical charge, written to disk before the first request so that a process
// restarted between attempts sends the same key. The key lives in .checkout-keys/<amount>.key
// in the working directory (the signature gives nothing else to name the order by) and is
// removed once the charge succeeds. The retry loop and backoff are the draft's.
// The kit runs a candidate's tests with this file in place of checkout.mjs: a test red on
// the draft and green here catches the key. Not part of the handout.
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const GATEWAY = process.env.GATEWAY_URL ?? "http://localhost:8099";
const KEY_DIR = ".checkout-keys";

function keyFile(amount) {
  return join(process.cwd(), KEY_DIR, `${encodeURIComponent(String(amount))}.key`);
}

function loadOrCreateKey(amount) {
  const file = keyFile(amount);
  try {
    return readFileSync(file, "utf8").trim();
  } catch (error) {
    if (error.code !== "ENOENT") throw error;
  }
  const key = crypto.randomUUID();
  mkdirSync(join(process.cwd(), KEY_DIR), { recursive: true });
  writeFileSync(`${file}.tmp`, key); // write, then rename: never a half-written key
  renameSync(`${file}.tmp`, file);
  return key;
}

export async function chargeWithRetry(amount, attempts = 3) {
  const idempotencyKey = loadOrCreateKey(amount); // persisted before the request
  for (let i = 0; i < attempts; i++) {
    const res = await fetch(`${GATEWAY}/charge`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        amount,
        idempotencyKey,
      }),
    });
    if (res.ok) {
      rmSync(keyFile(amount), { force: true });
      return res.json();
    }
    await new Promise((r) => setTimeout(r, 50 * (i + 1)));
  }
  throw new Error("charge failed after " + attempts + " attempts");
}
