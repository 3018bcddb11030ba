// The only file that talks to the network. Only imported in record mode.
import { appendFileSync, mkdirSync } from 'node:fs';

const MAX_CALLS = 40;
const BACKOFF_MS = [200, 400];

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

export class GiveUp extends Error {
  name = 'GiveUp';
}

export function logLine(entry) {
  mkdirSync('out', { recursive: true });
  appendFileSync('out/run.log', JSON.stringify({ at: new Date().toISOString(), ...entry }) + '\n');
}

export class LiveModel {
  constructor(env = process.env) {
    this.url = (env.OPENAI_BASE_URL || 'https://api.openai.com/v1').replace(/\/+$/, '') + '/chat/completions';
    this.key = env.OPENAI_API_KEY || '';
    this.model = env.MODEL || 'gpt-4o-mini';
    this.calls = 0;
  }

  async #once(request) {
    if (this.calls >= MAX_CALLS) {
      throw new GiveUp(`hit the ${MAX_CALLS}-call budget, stopping (nothing else will be sent)`);
    }
    this.calls += 1;
    const res = await fetch(this.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${this.key}` },
      body: JSON.stringify({ model: this.model, ...request }),
      signal: AbortSignal.timeout(15_000),
    });
    const text = await res.text();
    if (!res.ok) {
      const err = new Error(`HTTP ${res.status}: ${text.slice(0, 200)}`);
      err.retryable = res.status >= 500 || res.status === 429;
      throw err;
    }
    return JSON.parse(text);
  }

  async complete(request, ticketId) {
    for (let attempt = 0; ; attempt++) {
      const t0 = performance.now();
      try {
        const response = await this.#once(request);
        logLine({
          ticket: ticketId,
          attempt: attempt + 1,
          ms: Math.round(performance.now() - t0),
          model: response.model,
          usage: response.usage,
        });
        return response;
      } catch (err) {
        if (err instanceof GiveUp) throw err;
        // fetch() rejects with a TypeError when it can't connect; timeouts are DOMExceptions
        const retryable = err.retryable ?? (err.name === 'TypeError' || err.name === 'TimeoutError');
        logLine({ ticket: ticketId, attempt: attempt + 1, error: String(err.message || err) });
        if (!retryable || attempt >= BACKOFF_MS.length) {
          throw new GiveUp(`ticket ${ticketId}: ${err.message} (after ${attempt + 1} attempts)`);
        }
        await sleep(BACKOFF_MS[attempt]);
      }
    }
  }
}
