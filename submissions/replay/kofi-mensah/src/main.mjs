import { appendFileSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { buildRequest, parseReply } from './prompt.mjs';
import { FixtureError, readCassette, writeCassette } from './cassettes.mjs';

const mode = process.argv[2];
if (mode !== 'record' && mode !== 'replay') {
  console.error('usage: node src/main.mjs record|replay');
  process.exit(2);
}

function log(entry) {
  mkdirSync('out', { recursive: true });
  appendFileSync('out/run.log', JSON.stringify({ time: new Date().toISOString(), mode, ...entry }) + '\n');
}

async function main() {
  const tickets = JSON.parse(readFileSync('tickets.json', 'utf8'));
  let live = null;
  if (mode === 'record') {
    const { LiveModel } = await import('./live.mjs');
    live = new LiveModel({ model: process.env.MODEL || 'gpt-4o-mini', log });
  }

  const answers = [];
  for (const ticket of tickets) {
    const request = buildRequest(ticket);
    let response;
    if (live) {
      response = await live.complete(ticket.id, request);
      writeCassette(ticket.id, request, response);
    } else {
      response = readCassette(ticket.id, request);
    }
    const { label, justification } = parseReply(response.choices?.[0]?.message?.content);
    answers.push({ id: ticket.id, label, justification });
  }

  mkdirSync('out', { recursive: true });
  writeFileSync('out/answers.json.tmp', JSON.stringify(answers, null, 2) + '\n');
  renameSync('out/answers.json.tmp', 'out/answers.json');
  log({ answers: answers.length, calls: live?.calls ?? 0 });
  console.log(`${mode}: wrote ${answers.length} answers to out/answers.json` + (live ? ` (${live.calls} calls)` : ''));
}

main().catch((err) => {
  if (err instanceof FixtureError || err.name === 'GiveUp') console.error(`${mode} failed: ${err.message}`);
  else console.error(err);
  process.exit(1);
});
