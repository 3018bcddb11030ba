import type { ChatRequest } from './request.ts';

const DIR = 'cassettes';

export class CassetteNotFound extends Error {
  override name = 'CassetteNotFound';
}

export type Recording = {
  ticket: string;
  sha256: string;
  request: ChatRequest;
  response: { choices?: { message?: { content?: string | null } }[] };
};

async function sha256(text: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text));
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, '0')).join('');
}

/** Hash of what we ask (messages + temperature), not of which model answers. */
export function requestHash(req: ChatRequest): Promise<string> {
  return sha256(JSON.stringify([req.temperature, req.messages]));
}

export async function cassetteFile(ticket: string, req: ChatRequest): Promise<string> {
  return `${DIR}/${ticket.toLowerCase()}-${(await requestHash(req)).slice(0, 12)}.json`;
}

export async function playBack(ticket: string, req: ChatRequest): Promise<Recording> {
  const file = await cassetteFile(ticket, req);
  try {
    return JSON.parse(await Deno.readTextFile(file)) as Recording;
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) {
      throw new CassetteNotFound(`${file} is missing (ticket ${ticket}); run ./run.sh record to record it`);
    }
    throw err;
  }
}

export async function store(rec: Recording): Promise<void> {
  await Deno.mkdir(DIR, { recursive: true });
  await Deno.writeTextFile(await cassetteFile(rec.ticket, rec.request), JSON.stringify(rec, null, 2) + '\n');
}
