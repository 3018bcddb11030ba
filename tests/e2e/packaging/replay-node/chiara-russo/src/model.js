// Live calls (record only). main.js imports this lazily, so replay never loads undici.
import { setTimeout as sleep } from 'node:timers/promises';
import { Agent, fetch } from 'undici';
import { answerFrom, UnusableAnswer } from './answer.js';
import { keep } from './cassettes.js';

export const MAX_CALLS = 40;
const TRIES = 2; // first call + one retry per ticket
const PAUSE_MS = 400;

export class GiveUp extends Error {
  name = 'GiveUp';
}

export function connect(log) {
  const base = (process.env.OPENAI_BASE_URL ?? 'https://api.openai.com/v1').replace(/\/$/, '');
  const apiKey = process.env.OPENAI_API_KEY;
  if (!apiKey) throw new GiveUp('set OPENAI_API_KEY to record');
  const dispatcher = new Agent({ connectTimeout: 10_000, headersTimeout: 30_000, bodyTimeout: 30_000 });
  let calls = 0;

  async function triage(ticketId, request) {
    let last = 'nothing tried';
    for (let attempt = 1; attempt <= TRIES; attempt++) {
      if (calls === MAX_CALLS) throw new GiveUp(`reached ${MAX_CALLS} calls at ${ticketId}, stopping`);
      if (attempt > 1) await sleep(PAUSE_MS);
      calls += 1;
      const started = Date.now();
      try {
        const res = await fetch(`${base}/chat/completions`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${apiKey}` },
          body: JSON.stringify(request),
          dispatcher,
        });
        const body = await res.json().catch(() => null);
        log({ ticketId, attempt, status: res.status, ms: Date.now() - started, model: body?.model, usage: body?.usage });
        if (res.status !== 200) {
          last = `HTTP ${res.status}`;
          if (res.status === 429 || res.status >= 500) continue;
          break;
        }
        const answer = answerFrom(body);
        keep(ticketId, request, res.status, body);
        return answer;
      } catch (err) {
        if (!(err instanceof UnusableAnswer) && !(err instanceof TypeError)) throw err;
        last = err.cause?.code ?? err.message;
        log({ ticketId, attempt, ms: Date.now() - started, error: last });
      }
    }
    throw new GiveUp(`${ticketId}: gave up (${last})`);
  }

  return { triage, get calls() { return calls; }, close: () => dispatcher.close() };
}
