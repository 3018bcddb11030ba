import { appendFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cassetteFile, hasCassette, readCassette, writeCassette } from './cassettes.ts';
import { promptFor, readVerdict, type Ticket, type Verdict } from './prompt.ts';

type Row = { id: string } & Verdict;

const ANSWERS = 'out/answers.json';

function fail(message: string, code = 1): never {
  console.error(message);
  process.exit(code);
}

function runLog(fields: Record<string, unknown>): void {
  mkdirSync('out', { recursive: true });
  appendFileSync('out/run.log', `${JSON.stringify({ ts: new Date().toISOString(), ...fields })}\n`);
}

function saveAnswers(rows: Row[]): void {
  mkdirSync('out', { recursive: true });
  // Fixed field order, tickets.json order, nothing run-specific.
  const clean = rows.map((r) => ({ id: r.id, label: r.label, justification: r.justification }));
  writeFileSync(ANSWERS, `${JSON.stringify(clean, null, 2)}\n`);
}

function loadTickets(): Ticket[] {
  return JSON.parse(readFileSync('tickets.json', 'utf8')) as Ticket[];
}

function replay(tickets: Ticket[]): void {
  const missing = tickets.filter((t) => !hasCassette(promptFor(t)));
  if (missing.length > 0) {
    rmSync(ANSWERS, { force: true });
    const list = missing.map((t) => `  ${t.id}: ${cassetteFile(promptFor(t))}`).join('\n');
    fail(`replay: ${missing.length} cassette(s) missing, nothing written:\n${list}\nRun ./run.sh record to record them.`);
  }
  const rows = tickets.map((t): Row => {
    const cassette = readCassette(promptFor(t));
    const verdict = readVerdict(cassette.response.choices?.[0]?.message?.content);
    if (!verdict) fail(`replay: ${cassetteFile(promptFor(t))} (${t.id}) has no usable answer; re-record it`);
    return { id: t.id, ...verdict };
  });
  saveAnswers(rows);
  console.log(`replay: ${rows.length} answers written to ${ANSWERS}`);
}

async function record(tickets: Ticket[]): Promise<void> {
  const { ModelClient } = await import('./model.ts');
  const client = new ModelClient(runLog);
  const rows: Row[] = [];
  try {
    for (const t of tickets) {
      const prompt = promptFor(t);
      const [completion, verdict] = await client.ask(t.id, prompt, (c) => readVerdict(c.choices?.[0]?.message?.content));
      writeCassette(t.id, prompt, completion);
      rows.push({ id: t.id, ...verdict });
    }
  } catch (err) {
    runLog({ mode: 'record', calls: client.used, error: (err as Error).message });
    fail(`record: ${(err as Error).message} (${client.used} calls made, ${rows.length} tickets recorded)`);
  }
  saveAnswers(rows);
  runLog({ mode: 'record', calls: client.used, tickets: rows.length });
  console.log(`record: ${rows.length} tickets, ${client.used} model calls, answers in ${ANSWERS}`);
}

const mode = process.argv[2];
if (mode === 'replay') replay(loadTickets());
else if (mode === 'record') await record(loadTickets());
else fail('usage: ./run.sh record|replay', 2);
