import { appendFileSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { answerFrom, LABELS } from './answer.js';
import { play } from './cassettes.js';

const MODEL = process.env.MODEL ?? 'gpt-4o-mini';
const INSTRUCTIONS =
  `Classify the support ticket with exactly one label out of: ${LABELS.join(', ')}. ` +
  'Reply with a JSON object {"label": ..., "justification": ...}; the justification is one sentence.';

const buildRequest = (ticket) => ({
  model: MODEL,
  temperature: 0,
  messages: [
    { role: 'system', content: INSTRUCTIONS },
    { role: 'user', content: ticket.body },
  ],
});

function runLog(entry) {
  mkdirSync('out', { recursive: true });
  appendFileSync('out/run.log', JSON.stringify({ at: new Date().toISOString(), ...entry }) + '\n');
}

function saveAnswers(answers) {
  mkdirSync('out', { recursive: true });
  writeFileSync('out/answers.json.partial', JSON.stringify(answers, null, 2) + '\n');
  renameSync('out/answers.json.partial', 'out/answers.json');
}

async function main(mode) {
  const tickets = JSON.parse(readFileSync('tickets.json', 'utf8'));
  const answers = [];
  if (mode === 'replay') {
    for (const ticket of tickets) {
      answers.push({ id: ticket.id, ...answerFrom(play(ticket.id, buildRequest(ticket))) });
    }
  } else {
    const { connect } = await import('./model.js');
    const model = connect(runLog);
    try {
      for (const ticket of tickets) answers.push({ id: ticket.id, ...(await model.triage(ticket.id, buildRequest(ticket))) });
    } finally {
      runLog({ mode, calls: model.calls, answered: answers.length });
      await model.close();
    }
  }
  saveAnswers(answers);
  console.log(`${mode}: wrote ${answers.length} answers to out/answers.json`);
}

const mode = process.argv[2];
if (mode !== 'record' && mode !== 'replay') {
  console.error('usage: ./run.sh record|replay');
  process.exit(64);
}
main(mode).catch((err) => {
  const known = ['CassetteMissing', 'GiveUp', 'UnusableAnswer'].includes(err?.name);
  console.error(`${mode} failed: ${known ? err.message : err?.stack ?? err}`);
  process.exitCode = 1;
});
