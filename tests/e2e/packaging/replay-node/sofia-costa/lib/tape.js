'use strict';
// Cassettes: one JSON file per model call, named after a hash of what we sent.
const { createHash } = require('node:crypto');
const { existsSync, mkdirSync, readFileSync, writeFileSync } = require('node:fs');
const stringify = require('fast-json-stable-stringify');

// Where cassettes live (relative to the repo root); set in .env.
const TAPE_DIR = process.env.TRIAGE_CASSETTE_DIR || 'cassettes';

class MissingTape extends Error {
  constructor(message) {
    super(message);
    this.name = 'MissingTape';
  }
}

// The model id is left out of the key on purpose: replaying under another $MODEL is fine.
function tapeName(ticketId, body) {
  const { model, ...rest } = body;
  const digest = createHash('sha256').update(stringify(rest)).digest('hex').slice(0, 12);
  return `${TAPE_DIR}/${ticketId.toLowerCase()}_${digest}.json`;
}

function readTape(ticketId, body) {
  const file = tapeName(ticketId, body);
  if (!existsSync(file)) {
    throw new MissingTape(
      `missing cassette ${file} (ticket ${ticketId}). Replay never calls the model; run ./run.sh record to create it.`,
    );
  }
  const tape = JSON.parse(readFileSync(file, 'utf8'));
  if (tape?.response?.status !== 200) throw new MissingTape(`cassette ${file} holds no successful response; re-record it`);
  return tape.response.body;
}

function writeTape(ticketId, body, response) {
  mkdirSync(TAPE_DIR, { recursive: true });
  const tape = {
    ticket: ticketId,
    request: { method: 'POST', path: '/chat/completions', body },
    response,
  };
  const file = tapeName(ticketId, body);
  writeFileSync(file, JSON.stringify(tape, null, 2) + '\n');
  return file;
}

module.exports = { TAPE_DIR, MissingTape, tapeName, readTape, writeTape };
