// checkout.mjs — chargeWithRetry(amount) for the payment gateway.
//
// The idempotency key of a charge is saved under ~/.checkout/ before the first
// request, and dropped once the gateway gives a final answer. A process that is
// restarted in the middle of a charge finds the saved key and retries with it.
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { randomUUID } from "node:crypto";

const ATTEMPTS = 4;
const BACKOFF_MS = [150, 300, 600];
const TIMEOUT_MS = 3000;

const gateway = () => process.env.GATEWAY_URL || "http://localhost:8099";
const stateDir = () => process.env.CHECKOUT_STATE_DIR || join(homedir(), ".checkout");
const stateFile = () => join(stateDir(), "pending.json");

function readPending() {
  try {
    return JSON.parse(readFileSync(stateFile(), "utf8"));
  } catch (err) {
    if (err.code === "ENOENT") return {};
    throw err;
  }
}

function writePending(pending) {
  mkdirSync(stateDir(), { recursive: true });
  const tmp = `${stateFile()}.${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify(pending, null, 2));
  renameSync(tmp, stateFile());
}

function keyFor(amount) {
  const pending = readPending();
  if (!pending[amount]) {
    pending[amount] = randomUUID();
    writePending(pending); // saved before anything is sent
  }
  return pending[amount];
}

function settle(amount) {
  const pending = readPending();
  delete pending[amount];
  writePending(pending);
}

const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

export async function chargeWithRetry(amount) {
  const key = keyFor(amount);
  let failure;
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    if (attempt > 0) await pause(BACKOFF_MS[attempt - 1]);
    try {
      const res = await fetch(`${gateway()}/charge`, {
        method: "POST",
        headers: { "Content-Type": "application/json", "Idempotency-Key": key },
        body: JSON.stringify({ amount, idempotencyKey: key }),
        signal: AbortSignal.timeout(TIMEOUT_MS),
      });
      const data = await res.json().catch(() => ({}));
      if (res.ok) {
        settle(amount);
        return data;
      }
      failure = new Error(`gateway returned ${res.status}${data.error ? ` (${data.error})` : ""}`);
      if (res.status < 500 && res.status !== 409 && res.status !== 429) {
        settle(amount); // a refusal is final and charged nothing
        throw failure;
      }
    } catch (err) {
      if (err === failure) throw err;
      failure = err; // timeout / connection error: outcome unknown, keep the key
    }
  }
  throw new Error(`payment of ${amount} failed after ${ATTEMPTS} attempts: ${failure?.message}`);
}
