#!/usr/bin/env node
// Support ticket triage. `node triage.js replay` (offline) or `node triage.js record`.
'use strict';

const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');

const LABELS = ['billing', 'bug', 'account', 'feature_request', 'other'];
const CASSETTE_DIR = 'cassettes';
const CALL_BUDGET = 40;
const RETRY_WAIT_MS = [200, 400];

class Fatal extends Error {}

// ---------------------------------------------------------------- prompt

function requestFor(ticket) {
  return {
    messages: [
      {
        role: 'system',
        content:
          'Triage the support ticket. Labels: ' + LABELS.join(' | ') + '. ' +
          'Respond ONLY with JSON: {"label": "...", "justification": "..."} ' +
          '(justification = one sentence).',
      },
      { role: 'user', content: ticket.body },
    ],
    temperature: 0,
  };
}

function keyFor(request) {
  return crypto.createHash('sha1').update(JSON.stringify(request)).digest('hex').slice(0, 10);
}

function cassetteFile(request) {
  return path.join(CASSETTE_DIR, `chat-${keyFor(request)}.json`);
}

// ---------------------------------------------------------------- parsing

function toLabel(s) {
  const l = String(s || '').trim().toLowerCase().replace(/[\s-]+/g, '_').replace(/[^a-z_]/g, '');
  return LABELS.includes(l) ? l : 'other';
}

function parseReply(content) {
  const text = String(content || '').trim().replace(/^```(json)?/i, '').replace(/```$/, '').trim();
  try {
    const o = JSON.parse(text);
    if (o && typeof o === 'object') return { label: toLabel(o.label), why: oneLine(o.justification) };
  } catch (_) {
    // not JSON, try "label: x" lines below
  }
  const grab = (k) => {
    const m = text.match(new RegExp('^\\s*' + k + '\\s*:\\s*(.+)$', 'im'));
    return m ? m[1] : '';
  };
  return { label: toLabel(grab('label')), why: oneLine(grab('justification')) };
}

const oneLine = (s) => String(s || '').replace(/\s+/g, ' ').trim();

// ---------------------------------------------------------------- model access

function replayCall(ticket, request) {
  const file = cassetteFile(request);
  if (!fs.existsSync(file)) {
    throw new Fatal(`cassette ${file} (ticket ${ticket.id}) not found -- run ./run.sh record first`);
  }
  return JSON.parse(fs.readFileSync(file, 'utf8')).reply;
}

let callsMade = 0;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function liveCall(ticket, request) {
  const base = (process.env.OPENAI_BASE_URL || 'https://api.openai.com/v1').replace(/\/$/, '');
  const model = process.env.MODEL || 'gpt-4o-mini';
  let lastErr;
  for (let attempt = 0; attempt <= RETRY_WAIT_MS.length; attempt++) {
    if (attempt > 0) await sleep(RETRY_WAIT_MS[attempt - 1]);
    if (callsMade >= CALL_BUDGET) throw new Fatal(`call budget of ${CALL_BUDGET} used up, aborting record`);
    callsMade++;
    const started = Date.now();
    let res;
    try {
      res = await fetch(base + '/chat/completions', {
        method: 'POST',
        headers: {
          'Content-Type': 'application/json',
          Authorization: 'Bearer ' + (process.env.OPENAI_API_KEY || ''),
        },
        body: JSON.stringify({ model, ...request }),
        signal: AbortSignal.timeout(20000),
      });
    } catch (e) {
      lastErr = `network: ${e.cause ? e.cause.code || e.cause.message : e.message}`;
      log({ ticket: ticket.id, attempt, error: lastErr });
      continue;
    }
    if (res.status >= 500 || res.status === 429) {
      lastErr = `HTTP ${res.status}`;
      log({ ticket: ticket.id, attempt, error: lastErr });
      continue;
    }
    if (!res.ok) throw new Fatal(`ticket ${ticket.id}: HTTP ${res.status} ${await res.text()}`);
    const body = await res.json();
    const reply = body.choices[0].message.content;
    log({ ticket: ticket.id, attempt, ms: Date.now() - started, model: body.model, usage: body.usage });

    fs.mkdirSync(CASSETTE_DIR, { recursive: true });
    const cassette = {
      key: keyFor(request),
      ticket: ticket.id,
      request,
      reply,
      meta: { id: body.id, created: body.created, model: body.model, usage: body.usage },
    };
    fs.writeFileSync(cassetteFile(request), JSON.stringify(cassette, null, 2) + '\n');
    return reply;
  }
  throw new Fatal(`ticket ${ticket.id}: giving up after ${RETRY_WAIT_MS.length + 1} attempts (${lastErr})`);
}

function log(obj) {
  fs.mkdirSync('out', { recursive: true });
  fs.appendFileSync('out/run.log', JSON.stringify({ time: new Date().toISOString(), ...obj }) + '\n');
}

// ---------------------------------------------------------------- main

// stable key order so diffs between runs are readable
function sortKeys(obj) {
  return Object.fromEntries(Object.entries(obj).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

async function main(mode) {
  const tickets = JSON.parse(fs.readFileSync('tickets.json', 'utf8'));
  const call = mode === 'record' ? liveCall : replayCall;
  const rows = [];
  for (const t of tickets) {
    const request = requestFor(t);
    const { label, why } = parseReply(await call(t, request));
    rows.push(
      sortKeys({
        id: t.id,
        label,
        justification: why,
        triaged_at: new Date().toISOString(),
      }),
    );
  }
  fs.mkdirSync('out', { recursive: true });
  const tmp = path.join('out', '.answers.json.tmp');
  fs.writeFileSync(tmp, JSON.stringify(rows, null, 2) + '\n');
  fs.renameSync(tmp, path.join('out', 'answers.json'));
  log({ mode, tickets: rows.length, calls: callsMade });
  console.log(`[${mode}] ${rows.length} tickets triaged -> out/answers.json`);
}

const mode = process.argv[2];
if (mode !== 'replay' && mode !== 'record') {
  console.error('usage: node triage.js replay|record');
  process.exit(2);
}
main(mode).catch((e) => {
  console.error(e instanceof Fatal ? `error: ${e.message}` : e);
  process.exit(1);
});
