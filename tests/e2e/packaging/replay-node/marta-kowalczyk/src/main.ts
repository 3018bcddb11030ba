import 'dotenv/config';
import { appendFileSync, mkdirSync, readFileSync } from 'node:fs';
import writeFileAtomic from 'write-file-atomic';
import { FixtureMissingError, readFixture, writeFixture } from './fixtures.js';
import { ParseError, parseTriage } from './parse.js';
import { LABELS, type ChatRequest, type Ticket, type Triage } from './types.js';

const SYSTEM = [
  'You are a support engineer triaging tickets.',
  `Choose exactly one label: ${LABELS.join(' | ')}.`,
  'Answer only with JSON: {"label": "<label>", "justification": "<one sentence>"}',
].join('\n');

function requestFor(ticket: Ticket): ChatRequest {
  return {
    model: process.env.MODEL || 'gpt-4o-mini',
    temperature: 0,
    messages: [
      { role: 'system', content: SYSTEM },
      { role: 'user', content: `[${ticket.id}] ${ticket.body}` },
    ],
  };
}

function log(line: object): void {
  mkdirSync('out', { recursive: true });
  appendFileSync('out/run.log', `${JSON.stringify({ time: new Date().toISOString(), ...line })}\n`);
}

function writeAnswers(rows: ({ id: string } & Triage)[]): void {
  mkdirSync('out', { recursive: true });
  const out = rows.map((r) => ({ id: r.id, label: r.label, justification: r.justification }));
  writeFileAtomic.sync('out/answers.json', `${JSON.stringify(out, null, 2)}\n`);
}

async function main(): Promise<number> {
  const mode = process.argv[2];
  if (mode !== 'record' && mode !== 'replay') {
    console.error('usage: ./run.sh record|replay');
    return 2;
  }
  const tickets = JSON.parse(readFileSync('tickets.json', 'utf8')) as Ticket[];
  const rows: ({ id: string } & Triage)[] = [];

  if (mode === 'replay') {
    for (const t of tickets) rows.push({ id: t.id, ...parseTriage(readFixture(t.id, requestFor(t)).choices?.[0]?.message?.content) });
  } else {
    const { ModelClient } = await import('./client.js');
    const client = new ModelClient();
    try {
      for (const t of tickets) {
        const req = requestFor(t);
        const started = Date.now();
        const [completion, triage] = await client.complete(t.id, req, (c) => parseTriage(c.choices?.[0]?.message?.content));
        log({ ticket: t.id, ms: Date.now() - started, model: completion.model, usage: completion.usage });
        writeFixture(t.id, req, completion);
        rows.push({ id: t.id, ...triage });
      }
    } finally {
      log({ mode, calls: client.calls, done: rows.length });
    }
  }
  writeAnswers(rows);
  console.log(`${mode}: ${rows.length} answers -> out/answers.json`);
  return 0;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    const expected = err instanceof FixtureMissingError || err instanceof ParseError || (err as Error).name === 'RecordError';
    console.error(expected ? `error: ${(err as Error).message}` : err);
    process.exitCode = 1;
  },
);
