/*
 * Payment client for the gateway.
 *
 * Rules this file follows:
 *   1. One idempotency key per order, not per attempt.
 *   2. The key is on disk before the first request, so a restart reuses it.
 *   3. Transient failures (5xx, 409, 429, timeouts, network) are retried at most
 *      3 times, with exponential backoff and full jitter.
 */
import * as fsp from "node:fs/promises";
import * as path from "node:path";

const DEFAULTS = Object.freeze({
  gateway: process.env.GATEWAY_URL ?? "http://localhost:8099",
  keyFile: process.env.IDEMPOTENCY_FILE ?? path.join(process.cwd(), "idempotency-keys.json"),
  maxRetries: 3,
  backoffBaseMs: 100,
  backoffCapMs: 2000,
  attemptTimeoutMs: 3000,
});

const log = (msg) => process.stderr.write(`[checkout] ${msg}\n`);

// --------------------------------------------------------------------------
// Key persistence
// --------------------------------------------------------------------------

function entryName(amount) {
  return `charge-${amount}`;
}

async function loadKeyFile() {
  const raw = await fsp.readFile(DEFAULTS.keyFile, "utf8").catch((e) => {
    if (e.code === "ENOENT") return "{}";
    throw e;
  });
  return JSON.parse(raw);
}

async function saveKeyFile(data) {
  const tmp = DEFAULTS.keyFile + ".partial";
  await fsp.writeFile(tmp, JSON.stringify(data, null, 2) + "\n", "utf8");
  await fsp.rename(tmp, DEFAULTS.keyFile);
}

async function obtainKey(amount) {
  const data = await loadKeyFile();
  const existing = data[entryName(amount)];
  if (existing) {
    log(`resuming charge of ${amount} with key ${existing.key}`);
    return existing.key;
  }
  const key = crypto.randomUUID();
  data[entryName(amount)] = { key, amount };
  await saveKeyFile(data);
  return key;
}

async function dropKey(amount) {
  const data = await loadKeyFile();
  delete data[entryName(amount)];
  await saveKeyFile(data);
}

// --------------------------------------------------------------------------
// HTTP
// --------------------------------------------------------------------------

function computeBackoff(retryIndex) {
  const upper = Math.min(DEFAULTS.backoffCapMs, DEFAULTS.backoffBaseMs * 2 ** retryIndex);
  return Math.random() * upper; // full jitter
}

function retryableStatus(status) {
  return status >= 500 || status === 409 || status === 429;
}

async function requestCharge(amount, key) {
  const controller = new AbortController();
  const timeoutId = setTimeout(() => controller.abort(), DEFAULTS.attemptTimeoutMs);
  try {
    const response = await fetch(`${DEFAULTS.gateway}/charge`, {
      method: "POST",
      signal: controller.signal,
      headers: { "content-type": "application/json", "idempotency-key": key },
      body: JSON.stringify({ amount: amount, idempotencyKey: key }),
    });
    const payload = await response.json().catch(() => ({}));
    return { status: response.status, payload };
  } finally {
    clearTimeout(timeoutId);
  }
}

// --------------------------------------------------------------------------
// Public
// --------------------------------------------------------------------------

export async function chargeWithRetry(amount) {
  const key = await obtainKey(amount);
  let lastProblem = "no attempt made";

  for (let attempt = 0; attempt <= DEFAULTS.maxRetries; attempt += 1) {
    if (attempt > 0) {
      const delay = computeBackoff(attempt - 1);
      log(`retry ${attempt}/${DEFAULTS.maxRetries} in ${Math.round(delay)} ms (${lastProblem})`);
      await new Promise((r) => setTimeout(r, delay));
    }

    let result;
    try {
      result = await requestCharge(amount, key);
    } catch (err) {
      lastProblem = err.name === "AbortError" ? "timed out" : err.message;
      continue;
    }

    if (result.status >= 200 && result.status < 300) {
      await dropKey(amount);
      return result.payload;
    }
    lastProblem = `HTTP ${result.status}`;
    if (!retryableStatus(result.status)) {
      await dropKey(amount);
      throw new Error(`gateway rejected charge of ${amount}: ${lastProblem} ${result.payload.error ?? ""}`.trim());
    }
  }

  throw new Error(`unable to charge ${amount} (${lastProblem}); key kept for the next try`);
}
