import { CassetteNotFound, playBack, store } from './cassettes.ts';
import { requestFor, type Ticket } from './request.ts';
import { readReply, type Triage, UnreadableReply } from './schema.ts';

type Row = { id: string } & Triage;

async function log(entry: Record<string, unknown>) {
  await Deno.mkdir('out', { recursive: true });
  await Deno.writeTextFile('out/run.log', JSON.stringify({ at: new Date().toISOString(), ...entry }) + '\n', { append: true });
}

async function publish(rows: Row[]) {
  await Deno.mkdir('out', { recursive: true });
  const text = JSON.stringify(rows.map(({ id, label, justification }) => ({ id, label, justification })), null, 2) + '\n';
  await Deno.writeTextFile('out/answers.json.tmp', text);
  await Deno.rename('out/answers.json.tmp', 'out/answers.json');
}

async function main(mode: string): Promise<number> {
  const tickets: Ticket[] = JSON.parse(await Deno.readTextFile('tickets.json'));
  const model = Deno.env.get('MODEL') || 'gpt-4o-mini';
  const rows: Row[] = [];
  if (mode === 'replay') {
    for (const t of tickets) {
      const rec = await playBack(t.id, requestFor(t, model));
      rows.push({ id: t.id, ...readReply(rec.response.choices?.[0]?.message?.content) });
    }
  } else if (mode === 'record') {
    const { Recorder } = await import('./recorder.ts');
    const recorder = new Recorder(log);
    try {
      for (const t of tickets) {
        const [rec, triage] = await recorder.triage(t.id, requestFor(t, model));
        await store(rec);
        rows.push({ id: t.id, ...triage });
      }
    } finally {
      await log({ mode, calls: recorder.calls, rows: rows.length });
    }
  } else {
    console.error('usage: ./run.sh record|replay');
    return 2;
  }
  await publish(rows);
  console.log(`${mode}: ${rows.length} answers -> out/answers.json`);
  return 0;
}

const mode = Deno.args[0] ?? '';
try {
  Deno.exit(await main(mode));
} catch (err) {
  const known = err instanceof CassetteNotFound || err instanceof UnreadableReply ||
    (err instanceof Error && err.name === 'RecordAborted');
  console.error(`${mode} failed: ${known ? (err as Error).message : err}`);
  Deno.exit(1);
}
