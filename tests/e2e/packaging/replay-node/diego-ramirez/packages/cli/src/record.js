// Network code for `triage record`; the replay command never imports this file.
import pRetry, { AbortError } from 'p-retry';
import { parseTriage } from '@triage/cassette-store';

export const MAX_MODEL_CALLS = 40;

export class RecordFailed extends Error {
  name = 'RecordFailed';
}

export function makeCaller({ baseUrl, apiKey, log }) {
  const url = `${baseUrl.replace(/\/$/, '')}/chat/completions`;
  let calls = 0;

  async function once(request, ticketId) {
    if (calls >= MAX_MODEL_CALLS) throw new AbortError(`the ${MAX_MODEL_CALLS}-call budget is spent (at ${ticketId})`);
    calls += 1;
    const started = Date.now();
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${apiKey}` },
      body: JSON.stringify(request),
      signal: AbortSignal.timeout(25_000),
    });
    log({ ticket: ticketId, status: res.status, ms: Date.now() - started });
    if (res.status >= 400 && res.status < 500 && res.status !== 429) {
      throw new AbortError(`HTTP ${res.status} from the model endpoint`);
    }
    if (!res.ok) throw new Error(`HTTP ${res.status} from the model endpoint`);
    const completion = await res.json();
    const triage = parseTriage(completion); // an unusable answer throws and is retried
    log({ ticket: ticketId, model: completion.model, usage: completion.usage });
    return { completion, triage };
  }

  return {
    get calls() {
      return calls;
    },
    async call(request, ticketId) {
      try {
        // retries: 1 -> at most two calls per ticket, with a 500 ms pause
        return await pRetry(() => once(request, ticketId), { retries: 1, minTimeout: 500, maxTimeout: 500 });
      } catch (err) {
        throw new RecordFailed(`${ticketId}: ${err.message}`);
      }
    },
  };
}
