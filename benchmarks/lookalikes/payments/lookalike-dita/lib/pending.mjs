// lib/pending.mjs: a tiny JSON file that remembers the idempotency key of every
// charge that has not reached a final answer yet.

import { open, readFile, rename, mkdir } from "node:fs/promises";
import path from "node:path";

export const STATE_FILE = path.resolve(process.env.CHECKOUT_STATE ?? ".state/pending.json");

/** @returns {Promise<Record<string, {key: string, amount: number}>>} */
async function load() {
  let text;
  try {
    text = await readFile(STATE_FILE, "utf8");
  } catch (e) {
    if (e.code === "ENOENT") return {};
    throw e;
  }
  return JSON.parse(text);
}

/** Write to a temp file, fsync, then rename, so a crash never leaves half a file. */
async function store(pending) {
  await mkdir(path.dirname(STATE_FILE), { recursive: true });
  const tmp = `${STATE_FILE}.tmp-${process.pid}`;
  const handle = await open(tmp, "w");
  try {
    await handle.writeFile(JSON.stringify(pending, null, 2));
    await handle.sync();
  } finally {
    await handle.close();
  }
  await rename(tmp, STATE_FILE);
}

/**
 * The key for a charge of `amount`: the one left by an earlier (possibly killed)
 * run if there is one, else a new UUID that is on disk before this returns.
 */
export async function pendingKey(amount) {
  const pending = await load();
  const entry = pending[amount];
  if (entry) return entry.key;
  const key = crypto.randomUUID();
  pending[amount] = { key, amount };
  await store(pending);
  return key;
}

/** Forget the key once the gateway has said yes (or a definite no). */
export async function settle(amount) {
  const pending = await load();
  if (!(amount in pending)) return;
  delete pending[amount];
  await store(pending);
}
