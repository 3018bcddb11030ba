// checkout.mjs
//
// chargeWithRetry(amount) -> gateway JSON on success, throws when it gives up.
//
// Idempotency: the key is minted once per order (crypto.randomUUID) and saved in
// keys.json next to the process before we talk to the gateway. Retries, and a
// second process after a crash, send that same key, so the gateway can only
// ever charge the order once.

import fs from "node:fs";

const gatewayUrl = process.env.GATEWAY_URL ?? "http://localhost:8099";
const keysPath = process.env.KEYS_PATH ?? "keys.json";

const ATTEMPTS = 4;
const BASE = 100; // ms
const CAP = 2500; // ms
const PER_ATTEMPT_TIMEOUT = 3000; // ms

// Generic helpers ------------------------------------------------------------

const delay = (ms) => new Promise((ok) => setTimeout(ok, ms));

/** exponential backoff, full jitter (AWS style) */
const backoff = (i) => Math.random() * Math.min(CAP, BASE * 2 ** i);

/**
 * Call fn(attemptNumber) until it resolves, it throws something marked
 * `final`, or the attempts run out. Waits backoff(i) between attempts.
 */
async function retry(fn, attempts) {
  let error;
  for (let i = 0; i < attempts; i++) {
    if (i > 0) await delay(backoff(i - 1));
    try {
      return await fn(i + 1);
    } catch (e) {
      if (e.final) throw e;
      error = e;
    }
  }
  throw error;
}

// Key storage ----------------------------------------------------------------

function readAll() {
  try {
    return JSON.parse(fs.readFileSync(keysPath, "utf8"));
  } catch (e) {
    if (e.code === "ENOENT") return {};
    throw new Error(`cannot read ${keysPath}: ${e.message}`);
  }
}

function writeAll(all) {
  fs.writeFileSync(`${keysPath}~`, JSON.stringify(all));
  fs.renameSync(`${keysPath}~`, keysPath);
}

function rememberKey(amount) {
  const all = readAll();
  if (!all[amount]) {
    all[amount] = crypto.randomUUID();
    writeAll(all);
  }
  return all[amount];
}

function forget(amount) {
  const all = readAll();
  if (amount in all) {
    delete all[amount];
    writeAll(all);
  }
}

// Gateway --------------------------------------------------------------------

function fail(message, { final = false, cause } = {}) {
  const e = new Error(message, { cause });
  e.final = final;
  return e;
}

async function post(amount, key) {
  const ac = new AbortController();
  const timer = setTimeout(() => ac.abort(), PER_ATTEMPT_TIMEOUT);
  let res;
  try {
    res = await fetch(`${gatewayUrl}/charge`, {
      method: "POST",
      headers: { "content-type": "application/json", "idempotency-key": key },
      body: JSON.stringify({ amount, idempotencyKey: key }),
      signal: ac.signal,
    });
  } catch (cause) {
    throw fail(`no answer from gateway (${cause.name})`, { cause });
  } finally {
    clearTimeout(timer);
  }
  const data = await res.json().catch(() => ({}));
  if (res.ok) return data;
  const retryable = res.status >= 500 || res.status === 409 || res.status === 429;
  throw fail(`gateway said ${res.status}: ${data.error ?? "?"}`, { final: !retryable });
}

// Public ---------------------------------------------------------------------

export async function chargeWithRetry(amount) {
  const key = rememberKey(amount);
  try {
    const data = await retry(() => post(amount, key), ATTEMPTS);
    forget(amount);
    return data;
  } catch (e) {
    if (e.final) forget(amount); // a definite "no": nothing charged, drop the key
    throw fail(`charge ${amount} failed: ${e.message}`, { cause: e });
  }
}
