import fs from "node:fs";
import path from "node:path";

/**
 * Keeps one idempotency key per pending charge in a small JSON file, so the
 * key outlives the process. Entries are removed once the gateway has given a
 * final answer.
 */
class KeyStore {
  constructor(file) {
    this.file = file;
  }

  #load() {
    if (!fs.existsSync(this.file)) return {};
    return JSON.parse(fs.readFileSync(this.file, "utf8"));
  }

  #save(entries) {
    fs.mkdirSync(path.dirname(this.file), { recursive: true });
    const tmp = this.file + ".tmp";
    fs.writeFileSync(tmp, JSON.stringify(entries, null, 2));
    fs.renameSync(tmp, this.file);
  }

  getOrCreate(amount) {
    const entries = this.#load();
    const id = `amount:${amount}`;
    if (!entries[id]) {
      entries[id] = { key: crypto.randomUUID(), amount };
      this.#save(entries);
    }
    return entries[id].key;
  }

  remove(amount) {
    const entries = this.#load();
    if (delete entries[`amount:${amount}`]) this.#save(entries);
  }
}

class GatewayError extends Error {
  constructor(status, body) {
    super(`gateway returned HTTP ${status}${body?.error ? `: ${body.error}` : ""}`);
    this.status = status;
    this.transient = status >= 500 || status === 429 || status === 409;
  }
}

export class PaymentClient {
  constructor({
    baseUrl = process.env.GATEWAY_URL ?? "http://localhost:8099",
    store = new KeyStore(process.env.PAYMENTS_STATE ?? path.resolve(".payments", "keys.json")),
    retries = 3,
    baseDelayMs = 100,
    maxDelayMs = 1600,
    timeoutMs = 2500,
  } = {}) {
    Object.assign(this, { baseUrl, store, retries, baseDelayMs, maxDelayMs, timeoutMs });
  }

  delayBefore(retry) {
    // exponential, capped, full jitter
    const cap = Math.min(this.maxDelayMs, this.baseDelayMs * 2 ** retry);
    return Math.floor(Math.random() * cap);
  }

  async send(amount, key) {
    const ac = new AbortController();
    const timer = setTimeout(() => ac.abort(new Error(`no answer after ${this.timeoutMs} ms`)), this.timeoutMs);
    try {
      const response = await fetch(new URL("/charge", this.baseUrl), {
        method: "POST",
        headers: { "Content-Type": "application/json", "Idempotency-Key": key },
        body: JSON.stringify({ amount, idempotencyKey: key }),
        signal: ac.signal,
      });
      const body = await response.json().catch(() => null);
      if (!response.ok) throw new GatewayError(response.status, body);
      return body;
    } finally {
      clearTimeout(timer);
    }
  }

  async charge(amount) {
    const key = this.store.getOrCreate(amount);
    let failure;
    for (let retry = 0; retry <= this.retries; retry++) {
      if (retry > 0) {
        await new Promise((done) => setTimeout(done, this.delayBefore(retry - 1)));
      }
      try {
        const result = await this.send(amount, key);
        this.store.remove(amount);
        return result;
      } catch (err) {
        failure = err;
        if (err instanceof GatewayError && !err.transient) {
          this.store.remove(amount);
          break;
        }
      }
    }
    throw new Error(`payment of ${amount} not completed: ${failure.message}`, { cause: failure });
  }
}

export async function chargeWithRetry(amount) {
  return new PaymentClient().charge(amount);
}
