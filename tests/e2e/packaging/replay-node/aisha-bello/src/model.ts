// Network code lives here and only here; cli.ts imports this module for `record` only.
import type { ChatCompletion } from './cassettes.ts';
import type { Prompt } from './prompt.ts';

export const MAX_CALLS = 40;
const RETRY_DELAYS_MS = [200, 400]; // two retries after the first try
const TIMEOUT_MS = 15_000;

export class BudgetExhausted extends Error {}
export class ModelUnavailable extends Error {}

type Logger = (fields: Record<string, unknown>) => void;

export class ModelClient {
  readonly model = process.env.MODEL ?? 'gpt-4o-mini';
  private readonly url: string;
  private readonly apiKey: string;
  used = 0;

  constructor(private readonly log: Logger) {
    const base = process.env.OPENAI_BASE_URL ?? 'https://api.openai.com/v1';
    this.url = `${base.replace(/\/$/, '')}/chat/completions`;
    this.apiKey = process.env.OPENAI_API_KEY ?? '';
    if (!this.apiKey) throw new ModelUnavailable('OPENAI_API_KEY is not set; record needs it');
  }

  /** Calls the model until `usable` accepts a reply; every HTTP attempt counts against MAX_CALLS. */
  async ask<T>(ticketId: string, prompt: Prompt, usable: (c: ChatCompletion) => T | undefined): Promise<[ChatCompletion, T]> {
    let problem = 'no attempt made';
    for (let attempt = 0; attempt <= RETRY_DELAYS_MS.length; attempt++) {
      if (attempt > 0) await new Promise((r) => setTimeout(r, RETRY_DELAYS_MS[attempt - 1]));
      if (this.used >= MAX_CALLS) {
        throw new BudgetExhausted(`reached the limit of ${MAX_CALLS} model calls while on ${ticketId}`);
      }
      this.used += 1;
      const t0 = Date.now();
      let res: Response;
      try {
        res = await fetch(this.url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${this.apiKey}` },
          body: JSON.stringify({ model: this.model, ...prompt }),
          signal: AbortSignal.timeout(TIMEOUT_MS),
        });
      } catch (err) {
        problem = `request failed: ${(err as Error).cause ?? (err as Error).message}`;
        this.log({ ticket: ticketId, attempt, problem });
        continue;
      }
      const text = await res.text();
      this.log({ ticket: ticketId, attempt, status: res.status, ms: Date.now() - t0 });
      if (res.status === 429 || res.status >= 500) {
        problem = `HTTP ${res.status}`;
        continue;
      }
      if (!res.ok) throw new ModelUnavailable(`${ticketId}: HTTP ${res.status} ${text.slice(0, 300)}`);
      let body: ChatCompletion;
      try {
        body = JSON.parse(text) as ChatCompletion;
      } catch {
        problem = 'response is not JSON';
        continue;
      }
      const value = usable(body);
      if (value === undefined) {
        problem = 'reply has no valid label/justification';
        continue;
      }
      this.log({ ticket: ticketId, model: body.model, usage: body.usage });
      return [body, value];
    }
    throw new ModelUnavailable(`${ticketId}: giving up after ${RETRY_DELAYS_MS.length + 1} attempts (${problem})`);
  }
}
