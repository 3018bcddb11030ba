// The only module that talks to the network. main.ts imports it in record mode only.
import OpenAI from 'openai';
import { cassetteKey, type Cassette } from './cassettes.js';
import { parseReply, UnusableReply, type Triage } from './reply.js';
import type { TriageRequest } from './request.js';

export const MAX_CALLS = 40; // per run, retries included (two per ticket)
const ATTEMPTS_PER_TICKET = 3;
const BACKOFF_MS = [250, 750];

export class RecordAborted extends Error {
  override name = 'RecordAborted';
}

type Log = (entry: Record<string, unknown>) => void;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function isTransient(err: unknown): boolean {
  if (err instanceof OpenAI.APIConnectionError) return true; // includes timeouts
  if (err instanceof OpenAI.APIError) {
    const status = err.status ?? 0;
    return status === 408 || status === 409 || status === 429 || status >= 500;
  }
  return err instanceof UnusableReply;
}

export class Recorder {
  private readonly client: OpenAI;
  private readonly model: string;
  calls = 0;

  constructor(private readonly log: Log) {
    const apiKey = process.env.OPENAI_API_KEY;
    if (!apiKey) throw new RecordAborted('OPENAI_API_KEY is not set');
    this.model = process.env.MODEL || 'gpt-4o-mini';
    // maxRetries: 0 because the SDK would otherwise retry twice behind the call budget's back.
    this.client = new OpenAI({
      apiKey,
      baseURL: process.env.OPENAI_BASE_URL || undefined,
      maxRetries: 0,
      timeout: 20_000,
    });
  }

  async triage(ticketId: string, request: TriageRequest): Promise<{ cassette: Cassette; answer: Triage }> {
    let lastError: unknown;
    for (let attempt = 1; attempt <= ATTEMPTS_PER_TICKET; attempt++) {
      if (this.calls >= MAX_CALLS) {
        throw new RecordAborted(`call budget of ${MAX_CALLS} used up at ticket ${ticketId}; stopping`);
      }
      this.calls++;
      const started = Date.now();
      try {
        const body = { model: this.model, ...request };
        const completion = await this.client.chat.completions.create(body);
        const answer = parseReply(completion.choices[0]?.message?.content);
        this.log({ ticket: ticketId, attempt, ms: Date.now() - started, model: completion.model, usage: completion.usage });
        return {
          cassette: { ticket: ticketId, key: cassetteKey(request), request: body, response: completion },
          answer,
        };
      } catch (err) {
        lastError = err;
        this.log({ ticket: ticketId, attempt, ms: Date.now() - started, error: describe(err) });
        if (!isTransient(err)) throw new RecordAborted(`ticket ${ticketId}: ${describe(err)}`);
      }
      if (attempt < ATTEMPTS_PER_TICKET) await sleep(BACKOFF_MS[attempt - 1]);
    }
    throw new RecordAborted(`ticket ${ticketId}: giving up after ${ATTEMPTS_PER_TICKET} attempts (${describe(lastError)})`);
  }
}

function describe(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
