import { test, before, after, beforeEach } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";

// Own temp folder for the test run, so the real one is never touched.
const scratch = mkdtempSync(join(tmpdir(), "checkout-test-"));
const checkoutUrl = new URL("../checkout.mjs", import.meta.url).href;

let plan = [];
let seen = [];
let onRequest = () => {};
const gateway = createServer((req, res) => {
  let data = "";
  req.on("data", (c) => (data += c));
  req.on("end", () => {
    const body = JSON.parse(data);
    seen.push({ key: body.idempotencyKey, at: Date.now() });
    onRequest();
    const next = plan.length > 1 ? plan.shift() : plan[0] ?? 200;
    if (next === "no answer") return;
    res.writeHead(next, { "content-type": "application/json" });
    res.end(JSON.stringify({ ok: next === 200, amount: body.amount }));
  });
});

let chargeWithRetry;
before(async () => {
  await new Promise((r) => gateway.listen(0, "127.0.0.1", r));
  process.env.GATEWAY_URL = `http://127.0.0.1:${gateway.address().port}`;
  process.env.TMPDIR = scratch;
  ({ chargeWithRetry } = await import(checkoutUrl));
});
after(() => {
  gateway.closeAllConnections();
  gateway.close();
  rmSync(scratch, { recursive: true, force: true });
});
beforeEach(() => {
  plan = [200];
  seen = [];
  onRequest = () => {};
});

const pendingKeys = () => {
  try {
    return readdirSync(join(scratch, "checkout-keys")).map((f) => readFileSync(join(scratch, "checkout-keys", f), "utf8").trim());
  } catch {
    return [];
  }
};

// One charge in a fresh node process, as after a restart (same TMPDIR, same folder).
function chargeInChild(amount) {
  const code = `const { chargeWithRetry } = await import(${JSON.stringify(checkoutUrl)}); await chargeWithRetry(${amount});`;
  const child = spawn(process.execPath, ["--input-type=module", "-e", code], { cwd: scratch, env: process.env, stdio: "ignore" });
  child.exited = new Promise((resolve) => child.on("exit", resolve));
  return child;
}

test("a 503 and its retry carry the same key", async () => {
  plan = [503, 200];
  await chargeWithRetry(4200);
  assert.equal(seen.length, 2);
  assert.equal(seen[1].key, seen[0].key);
});

test("the key is on disk before the first request arrives", async () => {
  let keysAtFirstRequest;
  onRequest = () => (keysAtFirstRequest ??= pendingKeys());
  await chargeWithRetry(1300);
  assert.deepEqual(keysAtFirstRequest, [seen[0].key]);
  assert.deepEqual(pendingKeys(), [], "a finished charge leaves no key behind");
});

test("after a restart the new process sends the saved key", { timeout: 15000 }, async () => {
  plan = ["no answer", 200];
  const first = chargeInChild(8800);
  while (seen.length === 0) await new Promise((r) => setTimeout(r, 10));
  first.kill("SIGKILL");
  await first.exited;

  const second = chargeInChild(8800);
  assert.equal(await second.exited, 0);
  assert.equal(seen.length, 2);
  assert.equal(seen[1].key, seen[0].key);
});

test("an outage rejects after 4 attempts", async () => {
  plan = [503];
  await assert.rejects(chargeWithRetry(500), /after 4 attempts/);
  assert.equal(seen.length, 4);
  assert.equal(new Set(seen.map((s) => s.key)).size, 1);
});
