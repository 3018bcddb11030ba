// The only file that can reach the network. main.ts loads it with import() in record mode.
import OpenAI from "openai";
import { fingerprint, type Cassette } from "./cassette.ts";
import { BadAnswer, readVerdict, type Verdict } from "./labels.ts";
import type { promptFor } from "./prompt.ts";

export const CALL_LIMIT = 40; // per record run, retries included
const TRIES_PER_TICKET = 2; // one retry, as the handout allows
const RETRY_AFTER_MS = 500;

export class RecordStopped extends Error {
  override name = "RecordStopped";
}

export class LiveModel {
  readonly model = process.env.MODEL || "gpt-4o-mini";
  calls = 0;
  private client: OpenAI;

  constructor(private note: (line: Record<string, unknown>) => void) {
    if (!process.env.OPENAI_API_KEY) throw new RecordStopped("OPENAI_API_KEY is not set");
    // maxRetries 0: the SDK's own retries would be calls the limit does not see.
    this.client = new OpenAI({ baseURL: process.env.OPENAI_BASE_URL, maxRetries: 0, timeout: 30_000 });
  }

  async ask(ticketId: string, prompt: ReturnType<typeof promptFor>): Promise<[Cassette, Verdict]> {
    let why = "";
    for (let attempt = 1; attempt <= TRIES_PER_TICKET; attempt++) {
      if (this.calls >= CALL_LIMIT) throw new RecordStopped(`used all ${CALL_LIMIT} model calls, stopped at ${ticketId}`);
      if (attempt > 1) await Bun.sleep(RETRY_AFTER_MS);
      this.calls++;
      const t0 = performance.now();
      try {
        const request = { model: this.model, ...prompt };
        const response = await this.client.chat.completions.create(request);
        const verdict = readVerdict(response.choices[0]?.message?.content);
        this.note({ ticket: ticketId, attempt, ms: Math.round(performance.now() - t0), model: response.model, usage: response.usage });
        const cassette: Cassette = { ticket: ticketId, prompt_sha1: fingerprint(prompt), request, response: response as unknown as Cassette["response"] };
        return [cassette, verdict];
      } catch (err) {
        why = err instanceof Error ? err.message : String(err);
        this.note({ ticket: ticketId, attempt, ms: Math.round(performance.now() - t0), error: why });
        const retryable = err instanceof BadAnswer || err instanceof OpenAI.APIConnectionError ||
          (err instanceof OpenAI.APIError && (err.status === 429 || (err.status ?? 0) >= 500));
        if (!retryable) break;
      }
    }
    throw new RecordStopped(`${ticketId}: no usable answer from the model (${why})`);
  }
}
