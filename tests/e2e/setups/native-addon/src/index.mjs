import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { openLedger } from './ledger.mjs';
import { LABELS, parseAnswer } from './parse.mjs';
import { readTape, writeTape } from './tape.mjs';

const SYSTEM_PROMPT = `You are a support triage assistant.
Classify the ticket with exactly one of these labels: ${LABELS.join(', ')}.
Respond with only a JSON object: {"label": "...", "justification": "..."} where the justification is one sentence.`;

function chatBody(ticket, model) {
  return {
    model,
    temperature: 0,
    messages: [
      { role: 'system', content: SYSTEM_PROMPT },
      { role: 'user', content: ticket.body },
    ],
  };
}

function writeAnswers(rows) {
  mkdirSync('out', { recursive: true });
  writeFileSync('out/.answers.json.partial', JSON.stringify(rows, null, 2) + '\n');
  renameSync('out/.answers.json.partial', 'out/answers.json');
}

async function record(tickets, ledger) {
  const { createClient } = await import('./llm.mjs');
  const client = createClient({ log: ledger.log });
  const rows = [];
  for (const ticket of tickets) {
    const body = chatBody(ticket, client.model);
    const { response, value } = await client.complete(ticket.id, body, (json) =>
      parseAnswer(json.choices?.[0]?.message?.content),
    );
    writeTape(ticket.id, body, response);
    rows.push({ id: ticket.id, ...value });
  }
  writeAnswers(rows);
  ledger.finish({ tickets: rows.length, calls: client.calls(), ok: true });
  console.log(`record: ${rows.length} tickets, ${client.calls()} model calls -> cassettes/, out/answers.json`);
}

function replay(tickets, ledger) {
  // The model id never reaches the cassette key, so any value works here.
  const rows = tickets.map((ticket) => {
    const body = readTape(ticket.id, chatBody(ticket, process.env.MODEL || 'gpt-4o-mini'));
    return { id: ticket.id, ...parseAnswer(body.choices?.[0]?.message?.content) };
  });
  writeAnswers(rows);
  ledger.finish({ tickets: rows.length, ok: true });
  console.log(`replay: ${rows.length} tickets from cassettes/ -> out/answers.json`);
}

const mode = process.argv[2];
const tickets = JSON.parse(readFileSync('tickets.json', 'utf8'));

if (mode !== 'record' && mode !== 'replay') {
  console.error('usage: ./run.sh record|replay');
  process.exit(64);
}
const ledger = openLedger(mode);
try {
  if (mode === 'record') await record(tickets, ledger);
  else replay(tickets, ledger);
} catch (err) {
  const expected = ['MissingTape', 'GaveUp', 'BadReply'].includes(err?.name);
  console.error(`${mode}: ${expected ? err.message : err?.stack ?? err}`);
  ledger.finish({ ok: false });
  process.exitCode = 1;
}
