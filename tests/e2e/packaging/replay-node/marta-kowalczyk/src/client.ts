// HTTP to the model. Loaded by main.ts only for `record`.
import type { ChatCompletion, ChatRequest } from './types.js';

export const CALL_BUDGET = 40;
const ATTEMPTS = 2;
const BACKOFF_MS = 600;

export class RecordError extends Error {
  override name = 'RecordError';
}

export class ModelClient {
  calls = 0;
  private readonly endpoint: string;
  private readonly key: string;

  constructor() {
    this.endpoint = `${(process.env.OPENAI_BASE_URL ?? 'https://api.openai.com/v1').replace(/\/+$/, '')}/chat/completions`;
    this.key = process.env.OPENAI_API_KEY ?? '';
    if (!this.key) throw new RecordError('OPENAI_API_KEY must be set for record');
  }

  /** Posts `req` until `accept` returns without throwing; every POST counts against the budget. */
  async complete<T>(ticket: string, req: ChatRequest, accept: (c: ChatCompletion) => T): Promise<[ChatCompletion, T]> {
    let reason = '';
    for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
      if (this.calls >= CALL_BUDGET) throw new RecordError(`call budget (${CALL_BUDGET}) exhausted at ${ticket}`);
      if (attempt > 1) await new Promise((r) => setTimeout(r, BACKOFF_MS));
      this.calls++;
      try {
        const res = await fetch(this.endpoint, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${this.key}` },
          body: JSON.stringify(req),
          signal: AbortSignal.timeout(30_000),
        });
        if (!res.ok) {
          reason = `HTTP ${res.status}`;
          if (res.status === 429 || res.status >= 500) continue;
          break;
        }
        const completion = (await res.json()) as ChatCompletion;
        return [completion, accept(completion)];
      } catch (err) {
        reason = err instanceof Error ? err.message : String(err);
      }
    }
    throw new RecordError(`${ticket}: no usable completion after ${ATTEMPTS} attempts (${reason})`);
  }
}
