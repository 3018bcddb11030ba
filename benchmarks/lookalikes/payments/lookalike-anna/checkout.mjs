// checkout.mjs: charge through the gateway without ever charging an order twice.
//
// The draft made a new idempotency key on every attempt, so a retry looked like a
// brand-new payment to the gateway. Here the key is made once per charge, written
// to disk before the first request, and reused by every retry (and by a restarted
// process charging the same amount).

import { readFile, writeFile, rename } from "node:fs/promises";
import { resolve } from "node:path";

const GATEWAY_URL = process.env.GATEWAY_URL ?? "http://localhost:8099";
const KEYS_FILE = resolve(process.env.CHECKOUT_KEYS_FILE ?? ".checkout-keys.json");

const MAX_ATTEMPTS = 4; // first try + 3 retries
const BASE_DELAY_MS = 100;
const MAX_DELAY_MS = 2000;
const ATTEMPT_TIMEOUT_MS = 3000;

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// "Full jitter": anywhere between 0 and the exponential ceiling.
function backoffDelay(retry) {
  const ceiling = Math.min(MAX_DELAY_MS, BASE_DELAY_MS * 2 ** retry);
  return Math.random() * ceiling;
}

function isRetryable(status) {
  return status === 409 || status === 429 || status >= 500;
}

// ---- key store -------------------------------------------------------------

async function readKeys() {
  try {
    return JSON.parse(await readFile(KEYS_FILE, "utf8"));
  } catch (err) {
    if (err.code === "ENOENT") return {};
    throw err; // a broken file is something a human should look at
  }
}

async function writeKeys(keys) {
  const tmp = `${KEYS_FILE}.${process.pid}.tmp`;
  await writeFile(tmp, JSON.stringify(keys, null, 2) + "\n");
  await rename(tmp, KEYS_FILE);
}

async function keyFor(amount) {
  const keys = await readKeys();
  const slot = String(amount);
  if (keys[slot]) return keys[slot];
  keys[slot] = crypto.randomUUID();
  await writeKeys(keys);
  return keys[slot];
}

async function forgetKey(amount) {
  const keys = await readKeys();
  delete keys[String(amount)];
  await writeKeys(keys);
}

// ---- one HTTP attempt ------------------------------------------------------

async function postCharge(amount, idempotencyKey) {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), ATTEMPT_TIMEOUT_MS);
  try {
    return await fetch(`${GATEWAY_URL}/charge`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "idempotency-key": idempotencyKey,
      },
      body: JSON.stringify({ amount, idempotencyKey }),
      signal: controller.signal,
    });
  } finally {
    clearTimeout(timer);
  }
}

// ---- public API ------------------------------------------------------------

export async function chargeWithRetry(amount) {
  if (typeof amount !== "number" || !(amount >= 0)) {
    throw new TypeError(`invalid amount: ${amount}`);
  }
  const idempotencyKey = await keyFor(amount);
  let lastError;

  for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
    try {
      const res = await postCharge(amount, idempotencyKey);
      if (res.ok) {
        const body = await res.json();
        await forgetKey(amount);
        return body;
      }
      lastError = new Error(`gateway answered ${res.status}`);
      if (!isRetryable(res.status)) {
        await forgetKey(amount); // refused outright: nothing was charged
        throw lastError;
      }
    } catch (err) {
      if (err === lastError) throw err;
      lastError = err; // timeout or network error: same key, try again
    }
    if (attempt < MAX_ATTEMPTS) await sleep(backoffDelay(attempt - 1));
  }

  // Keep the key: one of the attempts may have gone through unseen.
  throw new Error(`charge of ${amount} failed after ${MAX_ATTEMPTS} attempts: ${lastError.message}`, {
    cause: lastError,
  });
}
