import { appendFileSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { loadCassette, MissingCassette, saveCassette } from './cassettes.js';
import { parseReply, UnusableReply, type Label } from './reply.js';
import { triageRequest, type Ticket } from './request.js';

type Mode = 'record' | 'replay';

interface Answer {
  id: string;
  label: Label;
  justification: string;
}

const mode = process.argv[2];
if (mode !== 'record' && mode !== 'replay') {
  console.error('usage: ./run.sh record|replay');
  process.exit(2);
}

// Timings, token counts and model ids go here, never into out/answers.json.
function log(entry: Record<string, unknown>): void {
  mkdirSync('out', { recursive: true });
  appendFileSync('out/run.log', JSON.stringify({ at: new Date().toISOString(), mode, ...entry }) + '\n');
}

async function run(mode: Mode): Promise<string> {
  const tickets = JSON.parse(readFileSync('tickets.json', 'utf8')) as Ticket[];
  const answers: Answer[] = [];

  if (mode === 'record') {
    const { Recorder } = await import('./record.js');
    const recorder = new Recorder(log);
    for (const ticket of tickets) {
      const request = triageRequest(ticket);
      const { cassette, answer } = await recorder.triage(ticket.id, request);
      saveCassette(cassette);
      answers.push({ id: ticket.id, ...answer });
    }
    writeAnswers(answers);
    log({ event: 'done', calls: recorder.calls, answers: answers.length });
    return `recorded ${answers.length} tickets with ${recorder.calls} model calls`;
  }

  for (const ticket of tickets) {
    const request = triageRequest(ticket);
    const cassette = loadCassette(ticket.id, request);
    const response = cassette.response as { choices?: { message?: { content?: unknown } }[] };
    answers.push({ id: ticket.id, ...parseReply(response.choices?.[0]?.message?.content) });
  }
  writeAnswers(answers);
  return `replayed ${answers.length} tickets from cassettes/`;
}

function writeAnswers(answers: Answer[]): void {
  mkdirSync('out', { recursive: true });
  const rows = answers.map(({ id, label, justification }) => ({ id, label, justification }));
  writeFileSync('out/answers.json.tmp', JSON.stringify(rows, null, 2) + '\n');
  renameSync('out/answers.json.tmp', 'out/answers.json');
}

run(mode).then(
  (summary) => console.log(`${mode}: ${summary}, wrote out/answers.json`),
  (err: unknown) => {
    const known = err instanceof MissingCassette || err instanceof UnusableReply || (err as Error)?.name === 'RecordAborted';
    console.error(`${mode} failed: ${known ? (err as Error).message : (err as Error)?.stack ?? err}`);
    process.exitCode = 1;
  },
);
