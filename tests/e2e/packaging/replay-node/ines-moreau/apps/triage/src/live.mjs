// Record mode only: talks to the model. main.mjs does `await import('./live.mjs')` for record.
import { BadAnswer, readAnswer } from './answer.mjs';

const LIMIT = 40;
const TRIES = 2;

export class Stop extends Error {
  constructor(message) {
    super(message);
    this.name = 'Stop';
  }
}

export function liveModel({ labels, log }) {
  const root = (process.env.OPENAI_BASE_URL || 'https://api.openai.com/v1').replace(/\/+$/, '');
  const token = process.env.OPENAI_API_KEY;
  if (!token) throw new Stop('OPENAI_API_KEY is missing');
  let used = 0;

  return {
    get used() {
      return used;
    },
    async ask(request, what) {
      let problem;
      for (let n = 1; n <= TRIES; n++) {
        if (used >= LIMIT) throw new Stop(`call limit ${LIMIT} reached before ${what}`);
        if (n > 1) await new Promise((r) => setTimeout(r, 300 * n));
        used++;
        const t = Date.now();
        try {
          const res = await fetch(`${root}/chat/completions`, {
            method: 'POST',
            headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
            body: JSON.stringify(request),
            signal: AbortSignal.timeout(30000),
          });
          const body = await res.json().catch(() => undefined);
          log({ what, try: n, status: res.status, ms: Date.now() - t, model: body?.model, usage: body?.usage });
          if (!res.ok) {
            problem = `HTTP ${res.status}`;
            if (res.status < 500 && res.status !== 429) break;
            continue;
          }
          return { response: body, answer: readAnswer(body, labels) };
        } catch (err) {
          if (!(err instanceof BadAnswer) && err.name !== 'TimeoutError' && err.name !== 'TypeError') throw err;
          problem = err.message;
          log({ what, try: n, ms: Date.now() - t, error: problem });
        }
      }
      throw new Stop(`${what}: ${problem}`);
    },
  };
}
