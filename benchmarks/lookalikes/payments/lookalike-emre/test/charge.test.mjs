import { test, before, after } from "node:test";
import * as assert from "node:assert/strict";
import * as http from "node:http";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";

let gateway;
let queue = [];
let log = [];
let chargeWithRetry;

before(async () => {
  gateway = http.createServer((req, res) => {
    const parts = [];
    req.on("data", (p) => parts.push(p));
    req.on("end", () => {
      const body = JSON.parse(Buffer.concat(parts).toString());
      log.push(body);
      const status = queue.length ? queue.shift() : 200;
      res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify({ ok: status === 200, chargeId: "ch_test", amount: body.amount }));
    });
  });
  await new Promise((r) => gateway.listen(0, "127.0.0.1", r));
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "emre-"));
  process.env.GATEWAY_URL = `http://127.0.0.1:${gateway.address().port}`;
  process.env.IDEMPOTENCY_FILE = path.join(dir, "keys.json");
  ({ chargeWithRetry } = await import("../checkout.mjs"));
});

after(() => gateway.close());

test("first 503 then 200: same key twice, resolves", async () => {
  queue = [503];
  log = [];
  const out = await chargeWithRetry(77);
  assert.equal(out.chargeId, "ch_test");
  assert.equal(log.length, 2);
  assert.equal(log[0].idempotencyKey, log[1].idempotencyKey);
});

test("outage: rejects after 4 requests, then a new call reuses the key", async () => {
  queue = [503, 503, 503, 503];
  log = [];
  await assert.rejects(chargeWithRetry(88), /unable to charge 88/);
  assert.equal(log.length, 4);
  const firstKey = log[0].idempotencyKey;

  log = [];
  await chargeWithRetry(88);
  assert.equal(log[0].idempotencyKey, firstKey);
});
