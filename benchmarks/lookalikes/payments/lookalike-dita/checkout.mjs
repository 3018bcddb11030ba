// checkout.mjs: charge an amount through the gateway, safely retryable.
import { pendingKey, settle } from "./lib/pending.mjs";

const GATEWAY = process.env.GATEWAY_URL ?? "http://localhost:8099";
const RETRIES = 3;
const BACKOFF_BASE_MS = 200;
const BACKOFF_MAX_MS = 5000;
const REQUEST_TIMEOUT_MS = Number(process.env.CHECKOUT_TIMEOUT_MS ?? 5000);

/** Statuses where the charge may still succeed if we ask again with the same key. */
const TRANSIENT = new Set([408, 409, 425, 429, 500, 502, 503, 504]);

class Transient extends Error {}

function fullJitter(retryNumber) {
  const exp = Math.min(BACKOFF_MAX_MS, BACKOFF_BASE_MS * Math.pow(2, retryNumber));
  return Math.floor(Math.random() * exp);
}

function pause(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * A single POST /charge. Resolves with the JSON body on a 2xx, throws
 * `Transient` for anything worth another try, and a plain Error otherwise.
 */
async function attemptCharge(amount, key) {
  const abort = new AbortController();
  const timeout = setTimeout(() => abort.abort(), REQUEST_TIMEOUT_MS);
  let res;
  try {
    res = await fetch(`${GATEWAY}/charge`, {
      method: "POST",
      headers: { "Content-Type": "application/json", "Idempotency-Key": key },
      body: JSON.stringify({ amount, idempotencyKey: key }),
      signal: abort.signal,
    });
  } catch (cause) {
    throw new Transient(`request failed (${cause.name})`, { cause });
  } finally {
    clearTimeout(timeout);
  }
  if (res.ok) return res.json();
  const detail = await res.text();
  if (TRANSIENT.has(res.status)) throw new Transient(`HTTP ${res.status} ${detail}`);
  throw new Error(`charge declined with HTTP ${res.status}: ${detail}`);
}

/**
 * Charge `amount`, retrying transient failures up to three times with
 * exponential backoff (full jitter). Every attempt, including those made after a
 * restart, carries the same idempotency key.
 */
export async function chargeWithRetry(amount) {
  const key = await pendingKey(amount);
  let attempt = 0;
  while (true) {
    try {
      const answer = await attemptCharge(amount, key);
      await settle(amount);
      return answer;
    } catch (err) {
      if (!(err instanceof Transient)) {
        await settle(amount);
        throw err;
      }
      if (attempt === RETRIES) {
        throw new Error(`charge of ${amount} still failing after ${RETRIES} retries`, { cause: err });
      }
      await pause(fullJitter(attempt));
      attempt += 1;
    }
  }
}
