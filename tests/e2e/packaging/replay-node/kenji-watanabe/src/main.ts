import { appendFileSync, mkdirSync, renameSync } from "node:fs";
import { loadCassette, NoCassette, saveCassette } from "./cassette.ts";
import { readVerdict, type Verdict } from "./labels.ts";
import { promptFor, type Ticket } from "./prompt.ts";

type Answer = { id: string } & Verdict;

const mode = process.argv[2];
if (mode !== "record" && mode !== "replay") {
  console.error("usage: ./run.sh record|replay");
  process.exit(2);
}

// Anything that changes between runs goes to out/run.log, never into answers.json.
function note(line: Record<string, unknown>) {
  mkdirSync("out", { recursive: true });
  appendFileSync("out/run.log", JSON.stringify({ time: new Date().toISOString(), mode, ...line }) + "\n");
}

async function writeAnswers(answers: Answer[]) {
  mkdirSync("out", { recursive: true });
  const rows = answers.map(({ id, label, justification }) => ({ id, label, justification }));
  await Bun.write("out/answers.json.tmp", JSON.stringify(rows, null, 2) + "\n");
  renameSync("out/answers.json.tmp", "out/answers.json");
}

const tickets: Ticket[] = await Bun.file("tickets.json").json();
const answers: Answer[] = [];

try {
  if (mode === "record") {
    const { LiveModel } = await import("./live.ts");
    const model = new LiveModel(note);
    try {
      for (const ticket of tickets) {
        const [cassette, verdict] = await model.ask(ticket.id, promptFor(ticket));
        await saveCassette(cassette);
        answers.push({ id: ticket.id, ...verdict });
      }
    } finally {
      note({ event: "record finished", calls: model.calls, answered: answers.length });
    }
    console.log(`record: ${answers.length} tickets, ${model.calls} model calls`);
  } else {
    for (const ticket of tickets) {
      const cassette = await loadCassette(ticket.id, promptFor(ticket));
      answers.push({ id: ticket.id, ...readVerdict(cassette.response.choices?.[0]?.message?.content) });
    }
    console.log(`replay: ${answers.length} tickets from cassettes/`);
  }
  await writeAnswers(answers);
} catch (err) {
  const name = (err as Error)?.name;
  const ours = err instanceof NoCassette || name === "RecordStopped" || name === "BadAnswer";
  console.error(`${mode} failed: ${ours ? (err as Error).message : (err as Error)?.stack ?? err}`);
  process.exit(1);
}
