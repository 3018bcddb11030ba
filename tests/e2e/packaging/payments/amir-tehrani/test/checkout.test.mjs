import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, beforeEach, test } from "node:test";
import { fileURLToPath } from "node:url";
import { startGateway } from "./gateway.mjs";

const child = fileURLToPath(new URL("./charge-in-child.mjs", import.meta.url));
const work = mkdtempSync(join(tmpdir(), "checkout-test-"));
const journal = join(work, "journal.jsonl");
let gateway;
let chargeWithRetry;

before(async () => {
  gateway = await startGateway();
  process.env.GATEWAY_URL = gateway.url;
  process.env.CHECKOUT_JOURNAL = journal;
  ({ chargeWithRetry } = await import("../checkout.mjs"));
});
after(async () => {
  await gateway.close();
  rmSync(work, { recursive: true, force: true });
});
beforeEach(() => rmSync(journal, { force: true }));

test("a retried 503 carries the same idempotency key", async () => {
  gateway.answer(503, 200);
  const result = await chargeWithRetry(4200);
  assert.equal(result.ok, true);
  assert.equal(gateway.requests.length, 2);
  assert.ok(gateway.requests[0].key, "the request carried no key");
  assert.equal(gateway.requests[1].key, gateway.requests[0].key);
});

test("the key is in the journal before the gateway sees the first request", async () => {
  gateway.answer(200);
  let journalled;
  const seen = gateway.received(1).then(() => {
    journalled = existsSync(journal) ? readFileSync(journal, "utf8") : "";
  });
  await chargeWithRetry(150);
  await seen;
  assert.match(journalled, new RegExp(gateway.requests[0].key));
});

test("a process restarted mid-charge sends the key of the first one", { timeout: 20_000 }, async () => {
  gateway.answer("hang", 200);
  const run = () => {
    const p = spawn(process.execPath, [child, "7300"], { cwd: work, env: process.env, stdio: ["ignore", "pipe", "pipe"] });
    return { p, exit: new Promise((resolve) => p.on("exit", (code) => resolve(code))) };
  };
  const first = run();
  await gateway.received(1);
  first.p.kill("SIGKILL");
  await first.exit;
  const second = run();
  assert.equal(await second.exit, 0);
  assert.equal(gateway.requests.length, 2);
  assert.equal(gateway.requests[1].key, gateway.requests[0].key, "the restarted process made a new key");
});

test("an outage ends in a rejection after 4 attempts, each wait longer", async () => {
  gateway.answer(503);
  await assert.rejects(chargeWithRetry(999), /after 4 attempts/);
  assert.equal(gateway.requests.length, 4);
  const gaps = gateway.requests.slice(1).map((r, i) => r.at - gateway.requests[i].at);
  assert.ok(gaps[0] < gaps[1] && gaps[1] < gaps[2], `gaps: ${gaps.map(Math.round)}`);
});

test("a 422 is final", async () => {
  gateway.answer(422);
  await assert.rejects(chargeWithRetry(5), /refused/);
  assert.equal(gateway.requests.length, 1);
});
