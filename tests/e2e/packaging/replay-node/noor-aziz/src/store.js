// cassettes/<ticket>--<sha256 of the request, 24 hex>.json — one file per model call.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import stringify from 'json-stable-stringify';

export class NoRecording extends Error {
  constructor(ticketId, file) {
    super(`ticket ${ticketId}: recording ${file} is missing. Replay never calls the model; run ./run.sh record first.`);
    this.name = 'NoRecording';
  }
}

const requestId = (req) => {
  const { model, ...asked } = req; // same question, any model id
  return createHash('sha256').update(stringify(asked)).digest('hex').slice(0, 24);
};

const fileOf = (ticketId, req) => `cassettes/${ticketId}--${requestId(req)}.json`;

export function lookup(ticketId, req) {
  const file = fileOf(ticketId, req);
  if (!existsSync(file)) throw new NoRecording(ticketId, file);
  return JSON.parse(readFileSync(file, 'utf8')).response;
}

export function store(ticketId, req, response) {
  mkdirSync('cassettes', { recursive: true });
  writeFileSync(fileOf(ticketId, req), stringify({ request: req, response, ticket: ticketId }, { space: 2 }) + '\n');
}
