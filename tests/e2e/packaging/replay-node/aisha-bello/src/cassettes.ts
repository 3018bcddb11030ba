import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import type { Prompt } from './prompt.ts';

const DIR = 'cassettes';

export interface Cassette {
  ticket_id: string;
  prompt_sha256: string;
  status: number;
  response: ChatCompletion;
}

export interface ChatCompletion {
  choices?: { message?: { content?: unknown } }[];
  [key: string]: unknown;
}

export function promptHash(prompt: Prompt): string {
  return createHash('sha256').update(JSON.stringify(prompt)).digest('hex');
}

export function cassetteFile(prompt: Prompt): string {
  return `${DIR}/${promptHash(prompt).slice(0, 20)}.json`;
}

export function hasCassette(prompt: Prompt): boolean {
  return existsSync(cassetteFile(prompt));
}

export function readCassette(prompt: Prompt): Cassette {
  return JSON.parse(readFileSync(cassetteFile(prompt), 'utf8')) as Cassette;
}

export function writeCassette(ticketId: string, prompt: Prompt, response: ChatCompletion): void {
  mkdirSync(DIR, { recursive: true });
  const cassette: Cassette = { ticket_id: ticketId, prompt_sha256: promptHash(prompt), status: 200, response };
  writeFileSync(cassetteFile(prompt), `${JSON.stringify(cassette, null, 2)}\n`);
}
