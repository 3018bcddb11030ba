// Only `record` imports this module (and with it the openai SDK).
import OpenAI from 'openai';
import { readReply, type Triage, UnreadableReply } from './schema.ts';
import { requestHash, type Recording } from './cassettes.ts';
import type { ChatRequest } from './request.ts';

const BUDGET = 40;
const ATTEMPTS = 2;

export class RecordAborted extends Error {
  override name = 'RecordAborted';
}

export class Recorder {
  calls = 0;
  #client: OpenAI;

  constructor(private log: (e: Record<string, unknown>) => Promise<void>) {
    const apiKey = Deno.env.get('OPENAI_API_KEY');
    if (!apiKey) throw new RecordAborted('OPENAI_API_KEY is not set');
    // No SDK retries: every HTTP request has to count against BUDGET.
    this.#client = new OpenAI({ apiKey, baseURL: Deno.env.get('OPENAI_BASE_URL'), maxRetries: 0, timeout: 30_000 });
  }

  async triage(ticket: string, req: ChatRequest): Promise<[Recording, Triage]> {
    let why = '';
    for (let i = 0; i < ATTEMPTS; i++) {
      if (this.calls >= BUDGET) throw new RecordAborted(`budget of ${BUDGET} calls used up at ${ticket}`);
      if (i > 0) await new Promise((r) => setTimeout(r, 500));
      this.calls++;
      const t0 = performance.now();
      try {
        const completion = await this.#client.chat.completions.create(req);
        const triage = readReply(completion.choices[0]?.message?.content);
        await this.log({ ticket, attempt: i + 1, ms: Math.round(performance.now() - t0), model: completion.model, usage: completion.usage });
        return [{ ticket, sha256: await requestHash(req), request: req, response: completion }, triage];
      } catch (err) {
        why = err instanceof Error ? err.message : String(err);
        await this.log({ ticket, attempt: i + 1, error: why });
        const transient = err instanceof UnreadableReply || err instanceof OpenAI.APIConnectionError ||
          (err instanceof OpenAI.APIError && (err.status === 429 || (err.status ?? 500) >= 500));
        if (!transient) break;
      }
    }
    throw new RecordAborted(`${ticket}: giving up (${why})`);
  }
}
