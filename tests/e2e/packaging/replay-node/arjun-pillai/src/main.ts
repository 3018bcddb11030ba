import { appendFileSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { LABELS, parseAnswer, type Answer } from './parse.js';
import { readTape, writeTape, type ChatBody } from './tape.js';

// The prompt lives in a text file next to the compiled code (copied to dist/ by the postbuild script).
const SYSTEM_PROMPT = readFileSync(new URL('./system-prompt.txt', import.meta.url), 'utf8')
  .trimEnd()
  .replace('{{labels}}', LABELS.join(', '));

interface Ticket {
  id: string;
  body: string;
}

function chatBody(ticket: Ticket, model: string): ChatBody {
  return {
    model,
    temperature: 0,
    messages: [
      { role: 'system', content: SYSTEM_PROMPT },
      { role: 'user', content: ticket.body },
    ],
  };
}

function writeLog(entry: Record<string, unknown>): void {
  mkdirSync('out', { recursive: true });
  appendFileSync('out/run.log', `${new Date().toISOString()} ${JSON.stringify(entry)}\n`);
}

function writeAnswers(rows: ({ id: string } & Answer)[]): void {
  mkdirSync('out', { recursive: true });
  writeFileSync('out/.answers.json.partial', JSON.stringify(rows, null, 2) + '\n');
  renameSync('out/.answers.json.partial', 'out/answers.json');
}

async function record(tickets: Ticket[]): Promise<void> {
  const { createClient } = await import('./llm.js');
  const client = createClient({ log: writeLog });
  const rows: ({ id: string } & Answer)[] = [];
  for (const ticket of tickets) {
    const body = chatBody(ticket, client.model);
    const { response, value } = await client.complete(ticket.id, body, (json) =>
      parseAnswer(json.choices?.[0]?.message?.content),
    );
    writeTape(ticket.id, body, response);
    rows.push({ id: ticket.id, ...value });
  }
  writeAnswers(rows);
  writeLog({ mode: 'record', calls: client.calls(), tickets: rows.length });
  console.log(`record: ${rows.length} tickets, ${client.calls()} model calls -> cassettes/, out/answers.json`);
}

function replay(tickets: Ticket[]): void {
  // The model id never reaches the cassette key, so any value works here.
  const rows = tickets.map((ticket) => {
    const body = readTape(ticket.id, chatBody(ticket, process.env.MODEL || 'gpt-4o-mini'));
    return { id: ticket.id, ...parseAnswer(body.choices?.[0]?.message?.content) };
  });
  writeAnswers(rows);
  console.log(`replay: ${rows.length} tickets from cassettes/ -> out/answers.json`);
}

const mode = process.argv[2];
const tickets: Ticket[] = JSON.parse(readFileSync('tickets.json', 'utf8'));

try {
  if (mode === 'record') await record(tickets);
  else if (mode === 'replay') replay(tickets);
  else {
    console.error('usage: ./run.sh record|replay');
    process.exitCode = 64;
  }
} catch (err: any) {
  const expected = ['MissingTape', 'GaveUp', 'BadReply'].includes(err?.name);
  console.error(`${mode}: ${expected ? err.message : err?.stack ?? err}`);
  process.exitCode = 1;
}
