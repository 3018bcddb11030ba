// Ticket triage with a record/replay boundary around the model call.
//   node triage.mjs record   -> calls the model, writes cassettes/ + out/answers.json
//   node triage.mjs replay   -> offline, reads cassettes/ only
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = dirname(fileURLToPath(import.meta.url));
const CASSETTES = join(ROOT, "cassettes");
const OUT_FILE = join(ROOT, "out", "answers.json");
const LABELS = ["billing", "bug", "account", "feature_request", "other"];
const MAX_CALLS = 40;

const SYSTEM =
  `You are a support triage assistant. Choose one label out of: ${LABELS.join(", ")}. ` +
  `Respond with only a JSON object {"label": "...", "justification": "..."}; the justification is one sentence.`;

export function buildRequest(ticket) {
  return {
    messages: [
      { role: "system", content: SYSTEM },
      { role: "user", content: ticket.body },
    ],
    temperature: 0,
  };
}

// JSON.stringify keeps insertion order, so sort keys ourselves for a canonical form.
function canonical(value) {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (value && typeof value === "object") {
    const keys = Object.keys(value).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonical(value[k])}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

export function requestKey(request) {
  return createHash("sha256").update(canonical(request), "utf8").digest("hex");
}

export function cassettePath(ticketId, key) {
  return join(CASSETTES, `${ticketId}.${key.slice(0, 12)}.json`);
}

export function parseContent(content) {
  let fields;
  try {
    fields = JSON.parse(content);
  } catch {
    fields = {};
    for (const line of String(content).split(/\r?\n/)) {
      const m = line.match(/^\s*(label|justification)\s*[:=]\s*(.*)$/i);
      if (m) fields[m[1].toLowerCase()] = m[2];
    }
  }
  const label = String(fields?.label ?? "").trim().toLowerCase();
  const justification = String(fields?.justification ?? "").replace(/\s+/g, " ").trim();
  if (!LABELS.includes(label) || !justification) return null;
  return { label, justification };
}

class Replayer {
  async answer(ticket) {
    const request = buildRequest(ticket);
    const file = cassettePath(ticket.id, requestKey(request));
    if (!existsSync(file)) {
      throw new Error(`missing fixture ${file.slice(ROOT.length + 1)} (ticket ${ticket.id}); run ./run.sh record`);
    }
    const { response } = JSON.parse(readFileSync(file, "utf8"));
    const parsed = parseContent(response.choices[0].message.content);
    if (!parsed) throw new Error(`fixture for ${ticket.id} has no usable answer`);
    return parsed;
  }
}

class Recorder {
  constructor(env = process.env) {
    this.endpoint = `${(env.OPENAI_BASE_URL ?? "https://api.openai.com/v1").replace(/\/+$/, "")}/chat/completions`;
    this.apiKey = env.OPENAI_API_KEY ?? "";
    this.model = env.MODEL ?? "gpt-4o-mini";
    this.calls = 0;
  }

  async call(request) {
    if (this.calls >= MAX_CALLS) throw new Error(`model call budget (${MAX_CALLS}) exhausted`);
    this.calls++;
    const res = await fetch(this.endpoint, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${this.apiKey}` },
      body: JSON.stringify({ model: this.model, ...request }),
      signal: AbortSignal.timeout(60_000),
    });
    if (!res.ok) throw new Error(`HTTP ${res.status} from model endpoint`);
    return res.json();
  }

  async answer(ticket) {
    const request = buildRequest(ticket);
    let reason = "";
    for (let attempt = 1; attempt <= 2; attempt++) {
      if (attempt > 1) await new Promise((r) => setTimeout(r, 400));
      let response;
      try {
        response = await this.call(request);
      } catch (err) {
        if (err.message.includes("budget")) throw err;
        reason = err.message;
        continue;
      }
      const parsed = parseContent(response?.choices?.[0]?.message?.content ?? "");
      if (!parsed) {
        reason = "reply did not contain a valid label";
        continue;
      }
      mkdirSync(CASSETTES, { recursive: true });
      writeFileSync(cassettePath(ticket.id, requestKey(request)), JSON.stringify({ request, response }, null, 2) + "\n");
      return parsed;
    }
    throw new Error(`${ticket.id}: giving up after 2 attempts (${reason})`);
  }
}

async function main(mode) {
  if (mode !== "record" && mode !== "replay") {
    console.error("usage: node triage.mjs record|replay");
    return 2;
  }
  const tickets = JSON.parse(readFileSync(join(ROOT, "tickets.json"), "utf8"));
  const client = mode === "record" ? new Recorder() : new Replayer();
  const answers = [];
  for (const ticket of tickets) {
    try {
      const { label, justification } = await client.answer(ticket);
      answers.push({ id: ticket.id, label, justification });
    } catch (err) {
      console.error(`${mode} failed: ${err.message}`);
      return 1;
    }
  }
  mkdirSync(dirname(OUT_FILE), { recursive: true });
  writeFileSync(OUT_FILE, JSON.stringify(answers, null, 2) + "\n");
  console.error(`${mode}: ${answers.length} answers written`);
  return 0;
}

process.exitCode = await main(process.argv[2]);
