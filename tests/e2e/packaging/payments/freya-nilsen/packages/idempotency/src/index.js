// Run an operation that may be retried, under one idempotency key for all its attempts.
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';

export class RetryableError extends Error {
  constructor(message, options) {
    super(message, options);
    this.name = 'RetryableError';
  }
}

/** Exponential backoff with full jitter: a random wait in [0, base * 2^n], capped. */
export function fullJitter({ baseMs = 100, capMs = 2000, random = Math.random } = {}) {
  return (retry) => Math.round(random() * Math.min(capMs, baseMs * 2 ** retry));
}

/** Exponential backoff with no randomness: base, 2*base, 4*base, ... */
export function exponential({ baseMs = 100, capMs = 2000 } = {}) {
  return (retry) => Math.min(capMs, baseMs * 2 ** retry);
}

/**
 * Calls `attempt(key, n)` until it resolves, up to `retries` more times after the first call
 * when it throws a RetryableError. Every call gets the same `key`.
 */
export async function retryWithKey(attempt, { retries = 3, delay = exponential(), key = randomUUID(), onRetry } = {}) {
  for (let n = 0; ; n++) {
    try {
      return await attempt(key, n);
    } catch (err) {
      if (!(err instanceof RetryableError) || n >= retries) throw err;
      const wait = delay(n);
      onRetry?.({ key, attempt: n, wait, error: err });
      await sleep(wait);
    }
  }
}
