'use strict';
const fs = require('fs');
const path = require('path');
const cassettes = require('./lib/cassettes');

const LABELS = ['billing', 'bug', 'account', 'feature_request', 'other'];
const CALL_CAP = 40;

const buildRequest = (ticket) => ({
  temperature: 0,
  messages: [
    {
      role: 'system',
      content:
        'Triage the customer ticket. Valid labels: ' + LABELS.join(', ') + '. ' +
        'Reply with JSON {"label": string, "justification": string}, justification in one line.',
    },
    { role: 'user', content: ticket.body },
  ],
});

function readAnswer(completion) {
  const text = completion && completion.choices && completion.choices[0].message.content;
  if (typeof text !== 'string') return null;
  let obj = null;
  try {
    obj = JSON.parse(text);
  } catch (_) {
    const label = /label\s*:\s*(.+)/i.exec(text);
    const why = /justification\s*:\s*(.+)/i.exec(text);
    obj = { label: label && label[1], justification: why && why[1] };
  }
  if (!obj || !LABELS.includes(String(obj.label).trim().toLowerCase())) return null;
  const justification = String(obj.justification || '').split(/\s+/).join(' ').trim();
  return justification ? { label: String(obj.label).trim().toLowerCase(), justification } : null;
}

// Replay: a function that answers from disk only.
const replayer = () => async (ticket) => {
  const answer = readAnswer(cassettes.load(ticket.id, buildRequest(ticket)));
  if (!answer) throw new Error(`cassette for ${ticket.id} has an unreadable answer`);
  return answer;
};

// Record: a function that calls the model (2 tries per ticket, 40 calls in all).
function recorder(env) {
  const url = (env.OPENAI_BASE_URL || 'https://api.openai.com/v1').replace(/\/$/, '') + '/chat/completions';
  let used = 0;
  const callModel = async (req) => {
    if (used === CALL_CAP) throw Object.assign(new Error('call cap of 40 reached'), { fatal: true });
    used += 1;
    const res = await fetch(url, {
      method: 'POST',
      headers: { Authorization: 'Bearer ' + (env.OPENAI_API_KEY || ''), 'Content-Type': 'application/json' },
      body: JSON.stringify({ ...req, model: env.MODEL || 'gpt-4o-mini' }),
      signal: AbortSignal.timeout(45000),
    });
    if (res.status !== 200) throw new Error('endpoint answered ' + res.status);
    return res.json();
  };
  return async (ticket) => {
    const req = buildRequest(ticket);
    let problem;
    for (const wait of [0, 500]) {
      await new Promise((r) => setTimeout(r, wait));
      try {
        const completion = await callModel(req);
        const answer = readAnswer(completion);
        if (answer) {
          cassettes.save(ticket.id, req, completion);
          return answer;
        }
        problem = 'unusable reply';
      } catch (err) {
        if (err.fatal) throw err;
        problem = err.message;
      }
      console.error(`[record] ${ticket.id}: ${problem}`);
    }
    throw new Error(`${ticket.id} still failing after 2 calls (${problem})`);
  };
}

async function main() {
  const mode = process.argv[2];
  const ask = mode === 'record' ? recorder(process.env) : replayer();
  const tickets = JSON.parse(fs.readFileSync(path.join(__dirname, 'tickets.json'), 'utf8'));
  const rows = [];
  for (const t of tickets) {
    const { label, justification } = await ask(t);
    rows.push({ id: t.id, label, justification });
  }
  const out = path.join(__dirname, 'out', 'answers.json');
  fs.mkdirSync(path.dirname(out), { recursive: true });
  fs.writeFileSync(out, JSON.stringify(rows, null, 2) + '\n', 'utf8');
}

main().catch((err) => {
  console.error(err instanceof cassettes.MissingCassetteError ? 'replay: ' + err.message : 'error: ' + err.message);
  process.exit(1);
});
