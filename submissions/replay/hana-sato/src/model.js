import { appendFileSync, mkdirSync } from 'node:fs';

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

export function runLog(entry) {
  mkdirSync('out', { recursive: true });
  appendFileSync('out/run.log', JSON.stringify({ ts: new Date().toISOString(), ...entry }) + '\n');
}

export function createModel() {
  const base = (process.env.OPENAI_BASE_URL ?? 'https://api.openai.com/v1').replace(/\/+$/, '');
  const apiKey = process.env.OPENAI_API_KEY ?? '';
  const model = process.env.MODEL ?? 'gpt-4o-mini';

  async function post(request) {
    const res = await fetch(`${base}/chat/completions`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${apiKey}` },
      body: JSON.stringify({ model, ...request }),
      signal: AbortSignal.timeout(15000),
    });
    if (!res.ok) throw new Error(`HTTP ${res.status}`);
    return { status: res.status, body: await res.json() };
  }

  // Provider hiccups are normal; keep trying until the call goes through so a
  // single flaky request doesn't throw away a whole recording session.
  async function chat(ticketId, request) {
    for (let attempt = 1; ; attempt++) {
      const t0 = Date.now();
      try {
        const result = await post(request);
        runLog({ ticket: ticketId, attempt, ms: Date.now() - t0, model: result.body.model, usage: result.body.usage });
        return result;
      } catch (err) {
        runLog({ ticket: ticketId, attempt, error: err.message });
        console.error(`  ${ticketId}: ${err.message}, retrying (attempt ${attempt})`);
        await sleep(250);
      }
    }
  }

  return { chat };
}
