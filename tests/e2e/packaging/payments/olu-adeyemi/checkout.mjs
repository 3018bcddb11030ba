// checkout.mjs: charge through the gateway without ever charging one order twice.
//
// One idempotency key per charge, written to .checkout/ BEFORE the first request.
// A process that dies mid-charge leaves the file behind; the next call for the
// same amount picks the key up again, so the gateway sees a retry, not a new payment.
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const GATEWAY = () => process.env.GATEWAY_URL ?? "http://localhost:8099";
const PENDING_DIR = () => process.env.CHECKOUT_PENDING_DIR ?? ".checkout";
const RETRIES = 3; // so 4 attempts in all
const BASE_MS = 100;
const ATTEMPT_TIMEOUT_MS = 3000;

const pendingFile = (amount) => join(PENDING_DIR(), `pending-${amount}.json`);

function loadOrCreateKey(amount) {
  try {
    const saved = JSON.parse(readFileSync(pendingFile(amount), "utf8"));
    if (saved.amount === amount && typeof saved.key === "string") return saved.key;
  } catch (err) {
    if (err.code !== "ENOENT") throw err;
  }
  const key = `chk_${crypto.randomUUID()}`;
  mkdirSync(PENDING_DIR(), { recursive: true });
  const tmp = `${pendingFile(amount)}.${process.pid}`;
  writeFileSync(tmp, JSON.stringify({ amount, key }));
  renameSync(tmp, pendingFile(amount)); // atomic: a crash never leaves half a key
  return key;
}

const forget = (amount) => rmSync(pendingFile(amount), { force: true });

// "Equal jitter": half the exponential step fixed, half random.
function backoff(retry) {
  const step = BASE_MS * 2 ** retry;
  return step / 2 + Math.random() * (step / 2);
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

export async function chargeWithRetry(amount) {
  const key = loadOrCreateKey(amount);
  let lastError;
  for (let attempt = 0; attempt <= RETRIES; attempt++) {
    if (attempt > 0) await sleep(backoff(attempt - 1));
    let res;
    try {
      res = await fetch(`${GATEWAY()}/charge`, {
        method: "POST",
        headers: { "content-type": "application/json", "idempotency-key": key },
        body: JSON.stringify({ amount, idempotencyKey: key }),
        signal: AbortSignal.timeout(ATTEMPT_TIMEOUT_MS),
      });
    } catch (err) {
      lastError = err; // network error or timeout: we don't know, retry with the same key
      continue;
    }
    const body = await res.json().catch(() => ({}));
    if (res.ok) {
      forget(amount);
      return body;
    }
    lastError = new Error(`gateway ${res.status}: ${body.error ?? "no detail"}`);
    if (res.status !== 409 && res.status !== 429 && res.status < 500) {
      forget(amount); // refused for good; nothing was charged
      throw lastError;
    }
  }
  throw new Error(`charge of ${amount} not completed after ${RETRIES + 1} attempts: ${lastError?.message}`);
}
