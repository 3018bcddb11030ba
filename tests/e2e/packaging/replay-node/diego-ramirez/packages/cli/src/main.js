import { appendFileSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { Command } from 'commander';
import { CassetteStore, MissingCassetteError, parseTriage, TriageParseError } from '@triage/cassette-store';
import { chatRequest } from './prompt.js';

function writeAnswers(file, rows) {
  mkdirSync('out', { recursive: true });
  writeFileSync(`${file}.tmp`, JSON.stringify(rows, null, 2) + '\n');
  renameSync(`${file}.tmp`, file);
}

function runLog(entry) {
  mkdirSync('out', { recursive: true });
  appendFileSync('out/run.log', JSON.stringify({ ts: new Date().toISOString(), ...entry }) + '\n');
}

async function replay(opts) {
  const store = new CassetteStore(opts.cassettes);
  const tickets = JSON.parse(readFileSync(opts.tickets, 'utf8'));
  const rows = [];
  for (const ticket of tickets) {
    const completion = await store.load(chatRequest(ticket, opts.model), ticket.id);
    rows.push({ id: ticket.id, ...parseTriage(completion) });
  }
  writeAnswers(opts.out, rows);
  console.log(`replayed ${rows.length} tickets -> ${opts.out}`);
}

async function record(opts) {
  const apiKey = process.env.OPENAI_API_KEY;
  if (!apiKey) throw new Error('OPENAI_API_KEY is not set');
  const { makeCaller } = await import('./record.js');
  const caller = makeCaller({ baseUrl: process.env.OPENAI_BASE_URL ?? 'https://api.openai.com/v1', apiKey, log: runLog });
  const store = new CassetteStore(opts.cassettes);
  const tickets = JSON.parse(readFileSync(opts.tickets, 'utf8'));
  const rows = [];
  try {
    for (const ticket of tickets) {
      const request = chatRequest(ticket, opts.model);
      const { completion, triage } = await caller.call(request, ticket.id);
      await store.save(request, completion, ticket.id);
      rows.push({ id: ticket.id, ...triage });
    }
  } finally {
    runLog({ command: 'record', calls: caller.calls, recorded: rows.length });
  }
  writeAnswers(opts.out, rows);
  console.log(`recorded ${rows.length} tickets with ${caller.calls} model calls -> ${opts.out}`);
}

export async function main(argv) {
  const program = new Command('triage')
    .option('--tickets <file>', 'tickets to label', 'tickets.json')
    .option('--cassettes <dir>', 'where recordings live', 'cassettes')
    .option('--out <file>', 'answers file', 'out/answers.json')
    .option('--model <id>', 'model id (record)', process.env.MODEL || 'gpt-4o-mini')
    .exitOverride();
  program.command('record').description('call the model and record cassettes').action(() => record(program.opts()));
  program.command('replay').description('rebuild answers from cassettes, offline').action(() => replay(program.opts()));
  try {
    await program.parseAsync(argv);
    return 0;
  } catch (err) {
    if (err.code?.startsWith?.('commander.')) return err.exitCode || 2;
    const expected = err instanceof MissingCassetteError || err instanceof TriageParseError || err.name === 'RecordFailed';
    console.error(expected ? `triage: ${err.message}` : err);
    return 1;
  }
}
