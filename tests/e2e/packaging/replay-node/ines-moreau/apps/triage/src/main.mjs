import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Tape, TapeMiss } from '@ines/llm-tape';
import YAML from 'yaml';
import { BadAnswer, readAnswer } from './answer.mjs';

const prompt = YAML.parse(fs.readFileSync(fileURLToPath(new URL('../prompt.yaml', import.meta.url)), 'utf8'));
const system = prompt.system.trim().replace('{labels}', prompt.labels.join(', '));

const requestFor = (ticket) => ({
  model: process.env.MODEL || 'gpt-4o-mini',
  temperature: prompt.temperature,
  messages: [
    { role: 'system', content: system },
    { role: 'user', content: `${ticket.id}: ${ticket.body}` },
  ],
});

function log(event) {
  fs.mkdirSync('out', { recursive: true });
  fs.appendFileSync('out/run.log', `${new Date().toISOString()} ${JSON.stringify(event)}\n`);
}

function publish(answers) {
  fs.mkdirSync('out', { recursive: true });
  fs.writeFileSync('out/answers.json.new', JSON.stringify(answers, null, 2) + '\n');
  fs.renameSync('out/answers.json.new', 'out/answers.json');
}

async function run(mode) {
  const tape = new Tape('cassettes');
  const tickets = JSON.parse(fs.readFileSync('tickets.json', 'utf8'));
  const answers = [];
  if (mode === 'replay') {
    for (const ticket of tickets) {
      answers.push({ id: ticket.id, ...readAnswer(tape.play(requestFor(ticket), ticket.id), prompt.labels) });
    }
  } else {
    const { liveModel } = await import('./live.mjs');
    const model = liveModel({ labels: prompt.labels, log });
    try {
      for (const ticket of tickets) {
        const request = requestFor(ticket);
        const { response, answer } = await model.ask(request, ticket.id);
        tape.record(request, response, ticket.id);
        answers.push({ id: ticket.id, ...answer });
      }
    } finally {
      log({ mode, calls: model.used, answers: answers.length });
    }
  }
  publish(answers);
  return answers.length;
}

const mode = process.argv[2];
if (!['record', 'replay'].includes(mode)) {
  console.error('usage: ./run.sh record|replay');
  process.exit(2);
}
try {
  console.log(`${mode}: ${await run(mode)} answers in out/answers.json`);
} catch (err) {
  const ours = err instanceof TapeMiss || err instanceof BadAnswer || err.name === 'Stop';
  console.error(`${mode}: ${ours ? err.message : err.stack}`);
  process.exitCode = 1;
}
