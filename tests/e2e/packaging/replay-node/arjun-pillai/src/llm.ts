// Live model calls. Imported by main.ts in record mode only, so replay never loads undici.
import { setTimeout as sleep } from 'node:timers/promises';
import { request } from 'undici';

export const CALL_BUDGET = 40; // hard cap per record run, retries included
const TRIES = 3; // first call + 2 retries
const BACKOFF = [300, 900]; // ms

export class GaveUp extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'GaveUp';
  }
}

type Log = (entry: Record<string, unknown>) => void;

export function createClient({ log }: { log: Log }) {
  const base = (process.env.OPENAI_BASE_URL || 'https://api.openai.com/v1').replace(/\/+$/, '');
  const key = process.env.OPENAI_API_KEY;
  if (!key) throw new GaveUp('OPENAI_API_KEY is not set');
  let calls = 0;

  async function post(body: unknown) {
    const res = await request(`${base}/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
      headersTimeout: 20_000,
      bodyTimeout: 20_000,
    });
    const text = await res.body.text();
    let json: any = null;
    try {
      json = JSON.parse(text);
    } catch {
      // leave json null, handled below
    }
    return { status: res.statusCode, contentType: String(res.headers['content-type'] ?? ''), text, json };
  }

  async function complete<T>(ticketId: string, body: unknown, accept: (json: any) => T) {
    let reason = '';
    for (let attempt = 1; attempt <= TRIES; attempt++) {
      if (calls >= CALL_BUDGET) throw new GaveUp(`hit the budget of ${CALL_BUDGET} model calls (at ${ticketId})`);
      calls++;
      const t0 = performance.now();
      let retry = true;
      try {
        const res = await post(body);
        const ms = Math.round(performance.now() - t0);
        if (res.status === 200 && res.json) {
          const value = accept(res.json); // throws on an unusable reply
          log({ ticket: ticketId, attempt, status: 200, ms, model: res.json.model, usage: res.json.usage });
          return { response: { status: 200, contentType: res.contentType, body: res.json }, value };
        }
        reason = `HTTP ${res.status}: ${res.text.slice(0, 200)}`;
        retry = res.status === 429 || res.status >= 500;
        log({ ticket: ticketId, attempt, status: res.status, ms });
      } catch (err: any) {
        if (err instanceof GaveUp) throw err;
        reason = err?.code ? `${err.code} ${err.message}` : String(err?.message ?? err);
        log({ ticket: ticketId, attempt, error: reason });
      }
      if (!retry) break;
      if (attempt < TRIES) await sleep(BACKOFF[attempt - 1]);
    }
    throw new GaveUp(`${ticketId}: no usable answer (${reason})`);
  }

  return { complete, calls: () => calls, model: process.env.MODEL || 'gpt-4o-mini' };
}
