// Payment client for the gateway stub.
//
// One logical charge = one idempotency key, and that key is written to disk
// before the first request leaves, so a restarted process picks up the same key
// instead of minting a new one.

import { mkdir, open, readFile, rename, rm } from "node:fs/promises";
import { dirname, join } from "node:path";

const PENDING_DIR = ".pending-charges";
const MAX_RETRIES = 3; // 4 attempts in total
const BACKOFF_MS = [100, 200, 400];
const DEFAULT_TIMEOUT_MS = 3000;
const RETRYABLE_STATUS = new Set([408, 425, 429, 500, 502, 503, 504]);

const gatewayUrl = (): string => process.env.GATEWAY_URL ?? "http://localhost:8099";

function timeoutMs(): number {
  const fromEnv = Number(process.env.CHARGE_TIMEOUT_MS);
  return fromEnv > 0 ? fromEnv : DEFAULT_TIMEOUT_MS;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

// The signature only gives us an amount, so the amount is the only thing that
// identifies "the same order" across a restart. See NOTE.md for why that's a
// compromise.
function pendingFile(amount: number): string {
  return join(process.cwd(), PENDING_DIR, `charge-${encodeURIComponent(String(amount))}.json`);
}

async function loadOrCreateKey(amount: number): Promise<string> {
  const file = pendingFile(amount);
  let saved: string | undefined;
  try {
    saved = await readFile(file, "utf8");
  } catch (err: any) {
    if (err.code !== "ENOENT") throw err;
  }
  if (saved !== undefined) {
    const pending = JSON.parse(saved); // a corrupt file throws: better to stop than to guess
    if (pending.amount !== amount || typeof pending.idempotencyKey !== "string") {
      throw new Error(`unexpected contents in ${file}; not charging until someone looks at it`);
    }
    return pending.idempotencyKey;
  }

  const idempotencyKey = crypto.randomUUID();
  const record = { amount, idempotencyKey, createdAt: new Date().toISOString() };
  await mkdir(dirname(file), { recursive: true });
  // write + fsync + rename so a crash never leaves a half-written key file behind
  const tmp = `${file}.${process.pid}.tmp`;
  const fh = await open(tmp, "w");
  try {
    await fh.writeFile(JSON.stringify(record) + "\n");
    await fh.sync();
  } finally {
    await fh.close();
  }
  await rename(tmp, file);
  return idempotencyKey;
}

async function clearKey(amount: number): Promise<void> {
  await rm(pendingFile(amount), { force: true });
}

// One HTTP attempt. Returns { done: true, body } on success, { done: false, error }
// when it is worth retrying, and throws when it is not.
type Outcome = { done: true; body: unknown } | { done: false; error: unknown };

async function attempt(amount: number, idempotencyKey: string): Promise<Outcome> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs());
  try {
    const res = await fetch(`${gatewayUrl()}/charge`, {
      method: "POST",
      headers: { "content-type": "application/json", "idempotency-key": idempotencyKey },
      body: JSON.stringify({ amount, idempotencyKey }),
      signal: controller.signal,
    });
    if (res.ok) return { done: true, body: await res.json() };
    const error: Error & { permanent?: boolean } = new Error(`gateway answered ${res.status}`);
    if (!RETRYABLE_STATUS.has(res.status)) {
      error.permanent = true;
      throw error;
    }
    return { done: false, error };
  } catch (err: any) {
    if (err.permanent) throw err;
    // Timeout, reset connection or a truncated body: the gateway may have charged
    // us. Retrying with the same key is what makes that safe.
    return { done: false, error: err };
  } finally {
    clearTimeout(timer);
  }
}

export async function chargeWithRetry(amount: number): Promise<unknown> {
  if (!Number.isFinite(amount) || amount <= 0) {
    throw new TypeError(`amount must be a positive number, got ${amount}`);
  }
  const idempotencyKey = await loadOrCreateKey(amount);

  let lastError: any;
  for (let i = 0; i <= MAX_RETRIES; i++) {
    if (i > 0) await sleep(BACKOFF_MS[i - 1]!);
    let outcome: Outcome;
    try {
      outcome = await attempt(amount, idempotencyKey);
    } catch (err: any) {
      // the gateway refused outright (4xx): nothing was charged, so the key can go
      await clearKey(amount);
      throw new Error(`charge of ${amount} rejected: ${err.message}`, { cause: err });
    }
    if (outcome.done) {
      await clearKey(amount);
      return outcome.body;
    }
    lastError = (outcome as { error: unknown }).error;
  }
  // The key file stays: the next call for this amount must reuse it, because one
  // of the attempts above may have gone through without us seeing the answer.
  throw new Error(
    `charge of ${amount} failed after ${MAX_RETRIES + 1} attempts: ${lastError?.message}`,
    { cause: lastError },
  );
}
