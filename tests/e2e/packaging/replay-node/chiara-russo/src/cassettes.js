// cassettes/<sha256(request without model)[0:16]>.json, one per model call.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import stringify from 'safe-stable-stringify';

const FOLDER = 'cassettes';

export class CassetteMissing extends Error {
  name = 'CassetteMissing';
}

export function requestHash(request) {
  const { model, ...rest } = request; // the model id may differ between record and replay
  return createHash('sha256').update(stringify(rest)).digest('hex');
}

export const fileFor = (request) => `${FOLDER}/${requestHash(request).slice(0, 16)}.json`;

export function play(ticketId, request) {
  const file = fileFor(request);
  if (!existsSync(file)) {
    throw new CassetteMissing(`no recording for ${ticketId}: ${file} does not exist (run ./run.sh record to make it)`);
  }
  const cassette = JSON.parse(readFileSync(file, 'utf8'));
  if (cassette.status !== 200) throw new CassetteMissing(`${file} holds a failed call (HTTP ${cassette.status}); record again`);
  return cassette.body;
}

export function keep(ticketId, request, status, body) {
  mkdirSync(FOLDER, { recursive: true });
  const file = fileFor(request);
  writeFileSync(file, stringify({ ticketId, requestHash: requestHash(request), request, status, body }, null, 2) + '\n');
  return file;
}
