// Cassettes: one JSON file per model call, named after a hash of what we sent.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import stringify from 'fast-json-stable-stringify';

export const TAPE_DIR = 'cassettes';

export class MissingTape extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MissingTape';
  }
}

export interface ChatBody {
  model: string;
  temperature: number;
  messages: { role: string; content: string }[];
}

// The model id is left out of the key on purpose: replaying under another $MODEL is fine.
export function tapeName(ticketId: string, body: ChatBody): string {
  const { model: _model, ...rest } = body;
  const digest = createHash('sha256').update(stringify(rest)).digest('hex').slice(0, 12);
  return `${TAPE_DIR}/${ticketId.toLowerCase()}_${digest}.json`;
}

export function readTape(ticketId: string, body: ChatBody): any {
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

export function writeTape(ticketId: string, body: ChatBody, response: unknown): string {
  mkdirSync(TAPE_DIR, { recursive: true });
  const tape = { ticket: ticketId, request: { method: 'POST', path: '/chat/completions', body }, response };
  const file = tapeName(ticketId, body);
  writeFileSync(file, JSON.stringify(tape, null, 2) + '\n');
  return file;
}
