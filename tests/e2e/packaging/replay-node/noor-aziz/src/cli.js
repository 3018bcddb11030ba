import { appendFileSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { PROMPT_VERSION, TRIAGE_SYSTEM } from '@noor/prompts';
import { lookup, NoRecording, store } from './store.js';
import { Unparseable, verdictOf } from './verdict.js';

const model = process.env.MODEL || 'gpt-4o-mini';

const requestFor = (t) => ({
  model,
  temperature: 0,
  messages: [
    { role: 'system', content: TRIAGE_SYSTEM },
    { role: 'user', content: `Ticket ${t.id}\n---\n${t.body}` },
  ],
});

function log(line) {
  mkdirSync('out', { recursive: true });
  appendFileSync('out/run.log', `${new Date().toISOString()} ${line}\n`);
}

function save(rows) {
  mkdirSync('out', { recursive: true });
  writeFileSync('out/.answers.tmp', JSON.stringify(rows, null, 2) + '\n');
  renameSync('out/.answers.tmp', 'out/answers.json');
}

async function main(mode) {
  const tickets = JSON.parse(readFileSync('tickets.json', 'utf8'));
  const rows = [];
  if (mode === 'replay') {
    for (const t of tickets) rows.push({ id: t.id, ...verdictOf(lookup(t.id, requestFor(t))) });
  } else {
    const { Llm } = await import('./llm.js');
    const llm = new Llm(log);
    log(`record start prompt=${PROMPT_VERSION} model=${model}`);
    try {
      for (const t of tickets) {
        const req = requestFor(t);
        const { response, verdict } = await llm.classify(t.id, req);
        store(t.id, req, response);
        rows.push({ id: t.id, ...verdict });
      }
    } finally {
      log(`record end calls=${llm.calls} answered=${rows.length}`);
    }
  }
  save(rows);
  console.log(`${mode}: ${rows.length} tickets -> out/answers.json`);
}

const mode = process.argv[2];
if (mode !== 'record' && mode !== 'replay') {
  console.error('usage: ./run.sh record|replay');
  process.exit(2);
}
main(mode).catch((err) => {
  const plain = err instanceof NoRecording || err instanceof Unparseable || err.name === 'Halt';
  console.error(plain ? `${mode}: ${err.message}` : err);
  process.exit(1);
});
