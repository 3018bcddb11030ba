// Record only. Counts every HTTP request against the 40-call cap.
import { verdictOf, Unparseable } from './verdict.js';

export const CAP = 40;

export class Halt extends Error {
  name = 'Halt';
}

export class Llm {
  constructor(log) {
    this.log = log;
    this.calls = 0;
    this.url = `${(process.env.OPENAI_BASE_URL || 'https://api.openai.com/v1').replace(/\/$/, '')}/chat/completions`;
    this.key = process.env.OPENAI_API_KEY;
    if (!this.key) throw new Halt('OPENAI_API_KEY is required for record');
  }

  async post(req) {
    this.calls += 1;
    const res = await fetch(this.url, {
      method: 'POST',
      headers: { authorization: `Bearer ${this.key}`, 'content-type': 'application/json' },
      body: JSON.stringify(req),
      signal: AbortSignal.timeout(30000),
    });
    const body = await res.json().catch(() => null);
    return { status: res.status, body };
  }

  /** Two tries per ticket: the second one after 0.5 s, only for 429/5xx/network errors/unreadable replies. */
  async classify(ticketId, req) {
    let why = '';
    for (const pause of [0, 500]) {
      if (this.calls >= CAP) throw new Halt(`stopping: ${CAP} calls made (at ${ticketId})`);
      if (pause) await new Promise((r) => setTimeout(r, pause));
      const t0 = Date.now();
      try {
        const { status, body } = await this.post(req);
        this.log(`${ticketId} status=${status} ms=${Date.now() - t0} model=${body?.model} tokens=${body?.usage?.total_tokens}`);
        if (status === 200) return { response: body, verdict: verdictOf(body) };
        why = `HTTP ${status}`;
        if (status < 500 && status !== 429) break;
      } catch (err) {
        if (!(err instanceof Unparseable) && err.name !== 'TypeError' && err.name !== 'TimeoutError') throw err;
        why = err.message;
        this.log(`${ticketId} error=${why}`);
      }
    }
    throw new Halt(`${ticketId}: ${why}`);
  }
}
