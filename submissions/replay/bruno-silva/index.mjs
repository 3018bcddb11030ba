import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { buildRequest, parseAnswer } from './lib/prompt.mjs';
import { loadCassette, MissingCassette, saveCassette } from './lib/cassettes.mjs';

const mode = process.argv[2];
if (mode !== 'replay' && mode !== 'record') {
  console.error('usage: node index.mjs replay|record');
  process.exit(64);
}

const tickets = JSON.parse(readFileSync('tickets.json', 'utf8'));

async function main() {
  // Don't even load the HTTP code unless we're recording.
  const live = mode === 'record' ? new (await import('./lib/live.mjs')).LiveModel() : null;

  const answers = [];
  // Sequential on purpose: keeps output order == ticket order, and it's 20 calls.
  for (const ticket of tickets) {
    const request = buildRequest(ticket);
    let response;
    if (live) {
      response = await live.complete(request, ticket.id);
      saveCassette(request, response);
    } else {
      response = loadCassette(request, ticket.id);
    }
    const { label, justification } = parseAnswer(response.choices?.[0]?.message?.content);
    answers.push({ id: ticket.id, label, justification });
  }

  mkdirSync('out', { recursive: true });
  writeFileSync('out/answers.json.partial', JSON.stringify(answers, null, 2) + '\n', 'utf8');
  renameSync('out/answers.json.partial', 'out/answers.json');
  console.log(`${mode}: ${answers.length} answers -> out/answers.json` + (live ? ` (${live.calls} model calls)` : ''));
}

main().catch((err) => {
  if (err instanceof MissingCassette || err.name === 'GiveUp') {
    console.error(`${mode} failed: ${err.message}`);
  } else {
    console.error(err);
  }
  process.exit(1);
});
