import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { FakeGateway } from "./support/fake-gateway.mjs";

const chargeOnce = fileURLToPath(new URL("./support/charge-once.mjs", import.meta.url));

describe("chargeWithRetry", function () {
  let gateway;
  let scratch;
  let keyDir;
  let chargeWithRetry;

  before(async function () {
    gateway = await new FakeGateway().start();
    scratch = mkdtempSync(join(tmpdir(), "checkout-test-"));
    keyDir = join(scratch, "keys");
    process.env.GATEWAY_URL = gateway.url;
    process.env.CHECKOUT_KEY_DIR = keyDir;
    ({ chargeWithRetry } = await import("../checkout.mjs"));
  });

  after(async function () {
    await gateway.stop();
    rmSync(scratch, { recursive: true, force: true });
  });

  beforeEach(function () {
    gateway.reset();
    rmSync(keyDir, { recursive: true, force: true });
  });

  it("retries a 503 and sends the same key both times", async function () {
    gateway.answer(503, 200);

    const result = await chargeWithRetry(1500);

    assert.equal(result.ok, true);
    assert.equal(gateway.seen.length, 2);
    assert.deepEqual(gateway.keys(), [gateway.seen[0].key], "the retry must carry the first attempt's key");
  });

  it("writes the key to disk before the first request goes out", async function () {
    let onDisk;
    gateway.onRequest(() => {
      onDisk ??= existsSync(keyDir) ? readdirSync(keyDir).map((f) => JSON.parse(readFileSync(join(keyDir, f), "utf8"))) : [];
    });

    await chargeWithRetry(2600);

    assert.deepEqual(onDisk.map((p) => p.idempotencyKey), [gateway.seen[0].key]);
  });

  it("gives up after 4 attempts with growing gaps during an outage", async function () {
    gateway.answer(503);

    await assert.rejects(chargeWithRetry(900), /failed after 4 attempts/);

    assert.equal(gateway.seen.length, 4);
    assert.equal(gateway.keys().length, 1);
    const gaps = gateway.seen.slice(1).map((r, i) => r.at - gateway.seen[i].at);
    assert.ok(gaps[0] >= 90 && gaps[1] > gaps[0] && gaps[2] > gaps[1], `gaps ${gaps.join("/")} ms`);
  });

  it("does not retry a 400 and drops the pending key", async function () {
    gateway.answer(400);

    await assert.rejects(chargeWithRetry(-3), /refused: gateway answered 400/);

    assert.equal(gateway.seen.length, 1);
    assert.deepEqual(existsSync(keyDir) ? readdirSync(keyDir) : [], []);
  });

  it("a restarted process reuses the pending key", async function () {
    this.timeout(15000);
    gateway.answer("hang", 200);
    const run = (amount) => {
      const child = spawn(process.execPath, [chargeOnce, String(amount)], { cwd: scratch, env: process.env, stdio: "pipe" });
      return { child, done: new Promise((resolve) => child.on("exit", (code) => resolve(code))) };
    };

    const first = run(7300);
    await gateway.waitForRequests(1);
    first.child.kill("SIGKILL");
    await first.done;
    const second = run(7300);

    assert.equal(await second.done, 0);
    assert.equal(gateway.seen.length, 2);
    assert.equal(gateway.seen[1].key, gateway.seen[0].key, "the process after the restart sent a new key");
  });

  it("a finished charge gets a fresh key next time", async function () {
    await chargeWithRetry(1200);
    await chargeWithRetry(1200);

    assert.equal(gateway.keys().length, 2);
  });
});
