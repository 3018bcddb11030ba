// Fixture store: cassettes/<ticket>-<sha256(messages+temperature)[:12]>.json
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import writeFileAtomic from 'write-file-atomic';
import type { ChatCompletion, ChatRequest } from './types.js';

const DIR = 'cassettes';

export class FixtureMissingError extends Error {
  override name = 'FixtureMissingError';
}

interface Fixture {
  ticket: string;
  hash: string;
  request: ChatRequest;
  completion: ChatCompletion;
}

export function hashOf(req: ChatRequest): string {
  // model is left out: replay should not depend on which model id the env names
  const stable = JSON.stringify({ temperature: req.temperature, messages: req.messages });
  return createHash('sha256').update(stable).digest('hex');
}

export function fixturePath(ticket: string, req: ChatRequest): string {
  return join(DIR, `${ticket}-${hashOf(req).slice(0, 12)}.json`);
}

export function readFixture(ticket: string, req: ChatRequest): ChatCompletion {
  const path = fixturePath(ticket, req);
  if (!existsSync(path)) {
    throw new FixtureMissingError(`fixture for ${ticket} not found at ${path}; run \`./run.sh record\` to create it`);
  }
  const fixture = JSON.parse(readFileSync(path, 'utf8')) as Fixture;
  if (fixture.hash !== hashOf(req)) throw new FixtureMissingError(`${path} does not match the current prompt; re-record`);
  return fixture.completion;
}

export function writeFixture(ticket: string, req: ChatRequest, completion: ChatCompletion): void {
  mkdirSync(DIR, { recursive: true });
  const fixture: Fixture = { ticket, hash: hashOf(req), request: req, completion };
  writeFileAtomic.sync(fixturePath(ticket, req), JSON.stringify(fixture, null, 2) + '\n');
}
