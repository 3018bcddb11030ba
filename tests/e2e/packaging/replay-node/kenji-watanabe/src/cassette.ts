// One cassette per model call: cassettes/<ticket>.<sha1 of the prompt, 10 chars>.json
import { mkdirSync } from "node:fs";
import type { promptFor } from "./prompt.ts";

type Prompt = ReturnType<typeof promptFor>;

export type Cassette = {
  ticket: string;
  prompt_sha1: string;
  request: Prompt & { model: string };
  response: { choices?: { message?: { content?: unknown } }[] } & Record<string, unknown>;
};

export class NoCassette extends Error {
  override name = "NoCassette";
}

const DIR = "cassettes";

export function fingerprint(prompt: Prompt): string {
  const hasher = new Bun.CryptoHasher("sha1");
  hasher.update(JSON.stringify(prompt));
  return hasher.digest("hex");
}

export const cassettePath = (ticketId: string, prompt: Prompt) =>
  `${DIR}/${ticketId}.${fingerprint(prompt).slice(0, 10)}.json`;

export async function loadCassette(ticketId: string, prompt: Prompt): Promise<Cassette> {
  const path = cassettePath(ticketId, prompt);
  const file = Bun.file(path);
  if (!(await file.exists())) {
    throw new NoCassette(`${path} not found (ticket ${ticketId}). replay never calls the model: run ./run.sh record first`);
  }
  const cassette = (await file.json()) as Cassette;
  if (cassette.prompt_sha1 !== fingerprint(prompt)) {
    throw new NoCassette(`${path} was recorded for another prompt; run ./run.sh record`);
  }
  return cassette;
}

export async function saveCassette(cassette: Cassette): Promise<void> {
  mkdirSync(DIR, { recursive: true });
  const path = `${DIR}/${cassette.ticket}.${cassette.prompt_sha1.slice(0, 10)}.json`;
  await Bun.write(path, JSON.stringify(cassette, null, 2) + "\n");
}
