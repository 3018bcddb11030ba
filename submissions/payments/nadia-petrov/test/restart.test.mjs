import { afterAll, beforeAll, beforeEach, expect, test } from "vitest";
import { spawn } from "node:child_process";
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { readFileSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { startGateway } from "./gateway.mjs";

const chargeOnce = fileURLToPath(new URL("./fixtures/charge-once.mjs", import.meta.url));

let gateway;
let stateDir;
let chargeWithRetry;

beforeAll(async () => {
  gateway = await startGateway();
  stateDir = await mkdtemp(join(tmpdir(), "checkout-restart-"));
  process.env.GATEWAY_URL = gateway.url;
  process.env.CHECKOUT_STATE_DIR = stateDir;
  process.env.CHECKOUT_TIMEOUT_MS = "300";
  ({ chargeWithRetry } = await import("../checkout.mjs"));
});

afterAll(async () => {
  await gateway.close();
  await rm(stateDir, { recursive: true, force: true });
});

beforeEach(() => gateway.reset());

function startCharge(amount) {
  const child = spawn(process.execPath, [chargeOnce, String(amount)], {
    env: { ...process.env, CHECKOUT_TIMEOUT_MS: "5000" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const exited = new Promise((resolve) => child.on("exit", (code, signal) => resolve({ code, signal })));
  return { child, exited };
}

async function until(condition, ms = 3000) {
  const end = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > end) throw new Error("timed out waiting");
    await new Promise((r) => setTimeout(r, 10));
  }
}

test("the key is saved before the first request is sent", async () => {
  const onDisk = [];
  gateway.onRequest(() => {
    for (const name of readdirSync(stateDir)) {
      onDisk.push(JSON.parse(readFileSync(join(stateDir, name), "utf8")).idempotencyKey);
    }
  });

  await chargeWithRetry(2200);

  expect(onDisk).toContain(gateway.requests[0].key);
});

test("a process restarted after a lost answer sends the same key", { timeout: 10000 }, async () => {
  gateway.script("hang", 200);

  const first = startCharge(5400);
  await until(() => gateway.requests.length === 1);
  first.child.kill("SIGKILL");
  await first.exited;

  const second = startCharge(5400);
  expect((await second.exited).code).toBe(0);

  expect(gateway.requests).toHaveLength(2);
  expect(gateway.requests[1].key).toBe(gateway.requests[0].key);
});

test("a finished charge clears its key, so the next order gets a new one", async () => {
  await chargeWithRetry(700);
  await chargeWithRetry(700);

  expect(gateway.keys().size).toBe(2);
  expect(await readdir(stateDir)).not.toContain("pending-700.json");
});
