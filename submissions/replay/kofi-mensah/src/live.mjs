// Record mode only: nothing else imports the SDK.
import OpenAI from 'openai';

const MAX_CALLS = 40; // per run, retries included
const BACKOFF_MS = [250, 500];

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

export class GiveUp extends Error {
  name = 'GiveUp';
}

const retryable = (err) =>
  err instanceof OpenAI.APIConnectionError ||
  err instanceof OpenAI.RateLimitError ||
  err instanceof OpenAI.InternalServerError;

export class LiveModel {
  constructor({ model, log }) {
    try {
      // OPENAI_BASE_URL and OPENAI_API_KEY are read by the SDK. Its own retries are
      // switched off, otherwise one create() can be three requests behind the budget's back.
      this.client = new OpenAI({ maxRetries: 0, timeout: 20_000 });
    } catch (err) {
      throw new GiveUp(err.message);
    }
    this.model = model;
    this.log = log;
    this.calls = 0;
  }

  async complete(ticketId, request) {
    let lastError;
    for (let attempt = 1; attempt <= BACKOFF_MS.length + 1; attempt++) {
      if (this.calls >= MAX_CALLS) {
        throw new GiveUp(`used the whole budget of ${MAX_CALLS} model calls, stopping`);
      }
      this.calls++;
      const started = performance.now();
      try {
        const completion = await this.client.chat.completions.create({ model: this.model, ...request });
        this.log({
          ticket: ticketId,
          attempt,
          ms: Math.round(performance.now() - started),
          model: completion.model,
          usage: completion.usage,
        });
        return completion;
      } catch (err) {
        this.log({ ticket: ticketId, attempt, error: String(err.message ?? err) });
        if (!retryable(err)) throw new GiveUp(`ticket ${ticketId}: ${err.message}`);
        lastError = err;
      }
      if (attempt <= BACKOFF_MS.length) await sleep(BACKOFF_MS[attempt - 1]);
    }
    throw new GiveUp(`ticket ${ticketId}: gave up after ${BACKOFF_MS.length + 1} attempts (${lastError.message})`);
  }
}
