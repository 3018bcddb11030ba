// A tiny gateway in the test process that logs every request and answers
// however the current test tells it to.
import { test, before, after, beforeEach } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { spawn } from "node:child_process";
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

const checkoutUrl = new URL("../checkout.mjs", import.meta.url).href;

let server;
let gatewayUrl;
let requests; // [{ at, key, amount }]
let respond; // (req, res, n) => void, n counts from 1
let workDir;
let chargeWithRetry;

const keysSeen = () => new Set(requests.map((r) => r.key));

function reply(res, status, body) {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
}

before(async () => {
  server = createServer((req, res) => {
    let raw = "";
    req.on("data", (chunk) => (raw += chunk));
    req.on("end", () => {
      const { amount, idempotencyKey } = JSON.parse(raw || "{}");
      requests.push({ at: Date.now(), key: idempotencyKey, amount });
      respond(req, res, requests.length);
    });
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  gatewayUrl = `http://127.0.0.1:${server.address().port}`;
  process.env.GATEWAY_URL = gatewayUrl;
  process.env.CHARGE_TIMEOUT_MS = "300";
  // the client keeps its pending-charge files in the working directory
  workDir = await mkdtemp(join(tmpdir(), "checkout-test-"));
  process.chdir(workDir);
  ({ chargeWithRetry } = await import(checkoutUrl));
});

after(async () => {
  server.closeAllConnections();
  server.close();
  await rm(workDir, { recursive: true, force: true });
});

beforeEach(() => {
  requests = [];
  respond = (req, res) => reply(res, 200, { status: "succeeded" });
});

test("a 503 then a 200 is one payment under one key", async () => {
  respond = (req, res, n) =>
    n === 1 ? reply(res, 503, { error: "unavailable" }) : reply(res, 200, { status: "succeeded", id: "ch_1" });

  const result = await chargeWithRetry(1999);

  assert.deepEqual(result, { status: "succeeded", id: "ch_1" });
  assert.equal(requests.length, 2);
  assert.equal(keysSeen().size, 1, "the retry must carry the first attempt's key");
});

test("an outage ends in a rejection after at most 4 attempts, with growing gaps", async () => {
  respond = (req, res) => reply(res, 503, { error: "unavailable" });

  await assert.rejects(chargeWithRetry(2500));

  assert.ok(requests.length >= 2 && requests.length <= 4, `made ${requests.length} attempts`);
  const gaps = requests.slice(1).map((r, i) => r.at - requests[i].at);
  for (let i = 1; i < gaps.length; i++) {
    assert.ok(gaps[i] > gaps[i - 1], `gaps should grow: ${gaps.join(", ")} ms`);
  }
});

test("an attempt that times out is retried with the same key", async () => {
  // first answer comes far too late (the gateway charged, we just never hear back in time)
  respond = (req, res, n) =>
    n === 1
      ? setTimeout(() => reply(res, 200, { status: "succeeded", id: "ch_slow" }), 1500)
      : reply(res, 200, { status: "succeeded", id: "ch_slow" });

  const result = await chargeWithRetry(3100);

  assert.equal(result.id, "ch_slow");
  assert.ok(requests.length >= 2, "expected a retry after the timeout");
  assert.equal(keysSeen().size, 1);
});

test("a restart between attempts reuses the key", async () => {
  // The first process sends its request and is killed before the answer arrives,
  // like a deploy or a crash mid-checkout. A second process charges the same amount.
  const cwd = await mkdtemp(join(tmpdir(), "checkout-restart-"));
  const script = `
    import { chargeWithRetry } from ${JSON.stringify(checkoutUrl)};
    console.log(JSON.stringify(await chargeWithRetry(4700)));
  `;
  const run = () =>
    spawn(process.execPath, ["--input-type=module", "-e", script], {
      cwd,
      env: { ...process.env, GATEWAY_URL: gatewayUrl, CHARGE_TIMEOUT_MS: "10000" },
      stdio: ["ignore", "pipe", "inherit"],
    });

  try {
    let firstArrived;
    const arrived = new Promise((resolve) => (firstArrived = resolve));
    respond = (req, res, n) => {
      if (n === 1) return firstArrived(); // hold it: this answer never comes
      reply(res, 200, { status: "succeeded", id: "ch_restart" });
    };

    const first = run();
    await arrived;
    first.kill("SIGKILL");
    await new Promise((resolve) => first.on("exit", resolve));

    const second = run();
    let out = "";
    second.stdout.on("data", (chunk) => (out += chunk));
    const code = await new Promise((resolve) => second.on("exit", resolve));

    assert.equal(code, 0);
    assert.equal(JSON.parse(out).id, "ch_restart");
    assert.equal(requests.length, 2);
    assert.equal(keysSeen().size, 1, "the process after the restart must send the same key");
  } finally {
    await rm(cwd, { recursive: true, force: true });
  }
});

test("after a success the next charge of the same amount gets a fresh key", async () => {
  await chargeWithRetry(1200);
  await chargeWithRetry(1200);

  assert.equal(requests.length, 2);
  assert.equal(keysSeen().size, 2, "two separate successful charges are two payments");
  const pending = await readdir(join(workDir, ".pending-charges")).catch(() => []);
  assert.ok(!pending.includes("charge-1200.json"), "a settled charge must not leave its key behind");
});
