// checkout.mjs: charge a payment through the gateway, retrying transient failures.
//
// A charge has one idempotency key for its whole life, and the key is on disk
// before the first request leaves this process. If the process dies while a
// request is in flight, the next process that charges the same amount finds
// the pending key and sends it again, so the gateway can recognise the retry.
import { closeSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, writeSync } from "node:fs";
import { join, resolve } from "node:path";

const GATEWAY = process.env.GATEWAY_URL ?? "http://localhost:8099";
const MAX_ATTEMPTS = 4; // the first try plus 3 retries
const BASE_DELAY_MS = 100; // 100, 200, 400 between attempts
const RETRYABLE = new Set([409, 429, 500, 502, 503, 504]);

const keyDir = () => resolve(process.env.CHECKOUT_KEY_DIR ?? ".idempotency");
const keyPath = (amount) => join(keyDir(), `charge-${encodeURIComponent(String(amount))}.json`);
const timeoutMs = () => Number(process.env.CHECKOUT_TIMEOUT_MS) || 2500;
const sleep = (ms) => new Promise((done) => setTimeout(done, ms));

function readPendingKey(amount) {
  let text;
  try {
    text = readFileSync(keyPath(amount), "utf8");
  } catch (err) {
    if (err.code === "ENOENT") return null;
    throw err;
  }
  const pending = JSON.parse(text); // a corrupt file throws: better than guessing a new key
  return pending.amount === amount ? pending.idempotencyKey : null;
}

function savePendingKey(amount, idempotencyKey) {
  mkdirSync(keyDir(), { recursive: true });
  const target = keyPath(amount);
  const tmp = `${target}.${process.pid}.tmp`;
  const fd = openSync(tmp, "w");
  try {
    writeSync(fd, JSON.stringify({ amount, idempotencyKey, createdAt: new Date().toISOString() }) + "\n");
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, target);
}

const clearPendingKey = (amount) => rmSync(keyPath(amount), { force: true });

function pendingKeyFor(amount) {
  const existing = readPendingKey(amount);
  if (existing) return existing;
  const fresh = crypto.randomUUID();
  savePendingKey(amount, fresh);
  return fresh;
}

async function attempt(amount, idempotencyKey) {
  return fetch(`${GATEWAY}/charge`, {
    method: "POST",
    headers: { "content-type": "application/json", "idempotency-key": idempotencyKey },
    body: JSON.stringify({ amount, idempotencyKey }),
    signal: AbortSignal.timeout(timeoutMs()),
  });
}

export async function chargeWithRetry(amount) {
  const idempotencyKey = pendingKeyFor(amount);
  let lastProblem = "no attempt made";
  for (let i = 0; i < MAX_ATTEMPTS; i++) {
    if (i > 0) await sleep(BASE_DELAY_MS * 2 ** (i - 1));
    let res;
    try {
      res = await attempt(amount, idempotencyKey);
    } catch (err) {
      // Timed out or the connection broke: the charge may have gone through,
      // so the only safe retry is one with the same key.
      lastProblem = err.name === "TimeoutError" ? `timed out after ${timeoutMs()} ms` : err.message;
      continue;
    }
    if (res.ok) {
      const body = await res.json();
      clearPendingKey(amount);
      return body;
    }
    lastProblem = `gateway answered ${res.status}`;
    if (!RETRYABLE.has(res.status)) {
      // A refusal: nothing was charged, and retrying will not change the answer.
      clearPendingKey(amount);
      throw new Error(`charge of ${amount} refused: ${lastProblem}`);
    }
  }
  // Keep the pending key: we don't know whether the last attempts were charged,
  // and the next try for this charge must send the same key.
  throw new Error(`charge of ${amount} failed after ${MAX_ATTEMPTS} attempts: ${lastProblem}`);
}
