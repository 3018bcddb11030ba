import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';

const DIR = 'cassettes';

export class FixtureError extends Error {
  name = 'FixtureError';
}

// Stable because buildRequest() always builds its keys in the same order.
export const requestKey = (request) =>
  createHash('sha256').update(JSON.stringify(request)).digest('hex').slice(0, 20);

const fileFor = (ticketId) => `${DIR}/${ticketId}.json`;

export function readCassette(ticketId, request) {
  const file = fileFor(ticketId);
  let cassette;
  try {
    cassette = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    if (err.code === 'ENOENT') {
      throw new FixtureError(`missing cassette ${file} for ticket ${ticketId}; run ./run.sh record`);
    }
    throw new FixtureError(`cannot read cassette ${file}: ${err.message}`);
  }
  if (cassette.key !== requestKey(request)) {
    throw new FixtureError(`cassette ${file} was recorded for a different request; run ./run.sh record`);
  }
  return cassette.response;
}

export function writeCassette(ticketId, request, response) {
  mkdirSync(DIR, { recursive: true });
  const cassette = { key: requestKey(request), request, response };
  writeFileSync(fileFor(ticketId), JSON.stringify(cassette, null, 2) + '\n');
}
