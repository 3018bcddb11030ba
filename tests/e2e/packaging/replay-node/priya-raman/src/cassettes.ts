import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { TriageRequest } from './request.js';

export const CASSETTE_DIR = 'cassettes';

export interface Cassette {
  ticket: string;
  key: string;
  request: TriageRequest & { model: string };
  response: unknown;
}

export class MissingCassette extends Error {
  override name = 'MissingCassette';
}

// triageRequest() always builds keys in the same order, so JSON.stringify is stable here.
export function cassetteKey(request: TriageRequest): string {
  return createHash('sha256').update(JSON.stringify(request)).digest('hex').slice(0, 16);
}

export function cassettePath(ticketId: string, request: TriageRequest): string {
  return join(CASSETTE_DIR, `${ticketId}-${cassetteKey(request)}.json`);
}

export function loadCassette(ticketId: string, request: TriageRequest): Cassette {
  const path = cassettePath(ticketId, request);
  if (!existsSync(path)) {
    throw new MissingCassette(
      `no cassette for ticket ${ticketId}: ${path} is missing. ` +
        'Run ./run.sh record (with OPENAI_BASE_URL and OPENAI_API_KEY set) to record it.',
    );
  }
  const cassette = JSON.parse(readFileSync(path, 'utf8')) as Cassette;
  if (cassette.key !== cassetteKey(request)) {
    throw new MissingCassette(`${path} was recorded for a different request; run ./run.sh record`);
  }
  return cassette;
}

export function saveCassette(cassette: Cassette): string {
  mkdirSync(CASSETTE_DIR, { recursive: true });
  const path = join(CASSETTE_DIR, `${cassette.ticket}-${cassette.key}.json`);
  writeFileSync(path, JSON.stringify(cassette, null, 2) + '\n');
  return path;
}
