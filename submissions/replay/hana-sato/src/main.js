import fs from 'node:fs';
import { LABELS, readAnswer } from './labels.js';
import { readCassette, writeCassette } from './cassette.js';

const mode = process.argv[2];

const SYSTEM_PROMPT = `You triage customer support tickets.
Choose exactly one label: ${LABELS.join(', ')}.
Reply with JSON only, for example {"label": "bug", "justification": "The export fails with an error."}`;

function buildRequest(ticket) {
  return {
    messages: [
      { role: 'system', content: SYSTEM_PROMPT },
      { role: 'user', content: `Ticket ${ticket.id}\n\n${ticket.body}` },
    ],
    temperature: 0,
  };
}

async function main() {
  const tickets = JSON.parse(fs.readFileSync('tickets.json', 'utf8'));
  const model = mode === 'record' ? (await import('./model.js')).createModel() : null;

  const answers = [];
  for (const ticket of tickets) {
    const request = buildRequest(ticket);
    let body;
    if (model) {
      const res = await model.chat(ticket.id, request);
      writeCassette(ticket.id, request, res.status, res.body);
      body = res.body;
    } else {
      body = readCassette(ticket.id, request);
    }
    const { label, justification } = readAnswer(body.choices[0].message.content);
    answers.push({ id: ticket.id, label, justification });
  }

  fs.mkdirSync('out', { recursive: true });
  fs.writeFileSync('out/answers.tmp.json', JSON.stringify(answers, null, 2) + '\n');
  fs.renameSync('out/answers.tmp.json', 'out/answers.json');
  console.log(`${mode}: ${answers.length} answers written to out/answers.json`);
}

main().catch((err) => {
  console.error(err.expected ? `${mode} failed: ${err.message}` : err);
  process.exit(1);
});
