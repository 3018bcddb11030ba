import { test, before, after, beforeEach } from "node:test";
import assert from "node:assert/strict";
import http from "node:http";
import { mkdtempSync, existsSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const answers = [];
const seen = [];
let server;
let chargeWithRetry;
let keysFile;

before(async () => {
  server = http.createServer((req, res) => {
    let raw = "";
    req.on("data", (c) => (raw += c));
    req.on("end", () => {
      const body = JSON.parse(raw);
      seen.push(body.idempotencyKey);
      const status = answers.shift() ?? 200;
      res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify({ ok: status === 200, amount: body.amount }));
    });
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  keysFile = join(mkdtempSync(join(tmpdir(), "anna-")), "keys.json");
  process.env.GATEWAY_URL = `http://127.0.0.1:${server.address().port}`;
  process.env.CHECKOUT_KEYS_FILE = keysFile;
  ({ chargeWithRetry } = await import("../checkout.mjs"));
});

after(() => server.close());
beforeEach(() => {
  answers.length = 0;
  seen.length = 0;
});

test("a 503 is retried with the same key", async () => {
  answers.push(503);
  const result = await chargeWithRetry(1250);
  assert.equal(result.ok, true);
  assert.equal(seen.length, 2);
  assert.equal(seen[0], seen[1]);
});

test("gives up after four attempts during an outage", async () => {
  answers.push(503, 503, 503, 503);
  await assert.rejects(chargeWithRetry(300), /4 attempts/);
  assert.equal(seen.length, 4);
  // the key survives, so a restart would reuse it
  const stored = JSON.parse(readFileSync(keysFile, "utf8"));
  assert.equal(stored["300"], seen[0]);
});

test("a restarted charge reuses the stored key", async () => {
  const before = JSON.parse(readFileSync(keysFile, "utf8"))["300"];
  await chargeWithRetry(300);
  assert.equal(seen[0], before);
  assert.ok(existsSync(keysFile));
});
