import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const DIR = 'cassettes';

export class MissingCassette extends Error {
  name = 'MissingCassette';
}

export function requestHash(request) {
  // buildRequest() always creates keys in the same order, so stringify is stable.
  return createHash('sha256').update(JSON.stringify(request), 'utf8').digest('hex');
}

export function cassettePath(request) {
  return join(DIR, `${requestHash(request)}.json`);
}

// A cassette is the provider's response body, untouched.
export function loadCassette(request, ticketId) {
  const path = cassettePath(request);
  if (!existsSync(path)) {
    throw new MissingCassette(
      `no cassette for ticket ${ticketId}: expected ${path}. ` +
        'Fixtures are out of date or incomplete -- run ./run.sh record.',
    );
  }
  return JSON.parse(readFileSync(path, 'utf8'));
}

export function saveCassette(request, response) {
  mkdirSync(DIR, { recursive: true });
  writeFileSync(cassettePath(request), JSON.stringify(response, null, 2) + '\n', 'utf8');
}
