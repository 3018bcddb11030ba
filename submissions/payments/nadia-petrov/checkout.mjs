// checkout.mjs: charge a payment through the gateway, retrying transient failures.
//
// One charge = one idempotency key. The key is written to disk before the first
// request goes out and reused by every retry, including retries made by a new
// process after a restart. It is removed once the gateway has given a final answer.
import { mkdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";

const GATEWAY = process.env.GATEWAY_URL ?? "http://localhost:8099";
const STATE_DIR = process.env.CHECKOUT_STATE_DIR ?? ".checkout";
const TIMEOUT_MS = Number(process.env.CHECKOUT_TIMEOUT_MS) || 2000;
const MAX_RETRIES = 3;
const BASE_DELAY_MS = 100; // 100, 200, 400
const RETRY_STATUS = new Set([409, 429, 500, 502, 503, 504]);

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

const keyFile = (amount) => join(STATE_DIR, `pending-${amount}.json`);

async function savedKey(amount) {
  try {
    const saved = JSON.parse(await readFile(keyFile(amount), "utf8"));
    return saved.amount === amount ? saved.idempotencyKey : undefined;
  } catch (err) {
    if (err.code === "ENOENT") return undefined;
    throw err;
  }
}

async function keyFor(amount) {
  const existing = await savedKey(amount);
  if (existing) return existing;
  const idempotencyKey = crypto.randomUUID();
  await mkdir(STATE_DIR, { recursive: true });
  const tmp = `${keyFile(amount)}.${process.pid}.tmp`;
  await writeFile(tmp, JSON.stringify({ amount, idempotencyKey }) + "\n");
  await rename(tmp, keyFile(amount));
  return idempotencyKey;
}

const forget = (amount) => rm(keyFile(amount), { force: true });

async function post(amount, idempotencyKey) {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), TIMEOUT_MS);
  try {
    return await fetch(`${GATEWAY}/charge`, {
      method: "POST",
      headers: { "content-type": "application/json", "idempotency-key": idempotencyKey },
      body: JSON.stringify({ amount, idempotencyKey }),
      signal: controller.signal,
    });
  } finally {
    clearTimeout(timer);
  }
}

export async function chargeWithRetry(amount) {
  const idempotencyKey = await keyFor(amount);
  let lastError;
  for (let attempt = 0; attempt <= MAX_RETRIES; attempt++) {
    if (attempt > 0) await sleep(BASE_DELAY_MS * 2 ** (attempt - 1));
    let res;
    try {
      res = await post(amount, idempotencyKey);
    } catch (err) {
      // timeout or connection error: the charge may or may not have happened,
      // so the retry must carry the same key
      lastError = err;
      continue;
    }
    if (res.ok) {
      const body = await res.json();
      await forget(amount);
      return body;
    }
    lastError = new Error(`gateway answered ${res.status}`);
    if (!RETRY_STATUS.has(res.status)) {
      await forget(amount);
      throw lastError;
    }
  }
  throw new Error(`charge of ${amount} failed after ${MAX_RETRIES + 1} attempts: ${lastError.message}`, {
    cause: lastError,
  });
}
