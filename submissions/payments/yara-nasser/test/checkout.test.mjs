import { after, before, beforeEach, test } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";

let server;
let seen;
let statuses;
let chargeWithRetry;

before(async () => {
  server = createServer((req, res) => {
    let raw = "";
    req.on("data", (chunk) => (raw += chunk));
    req.on("end", () => {
      const body = JSON.parse(raw);
      seen.push({ key: body.idempotencyKey, header: req.headers["idempotency-key"] });
      const status = statuses[Math.min(seen.length, statuses.length) - 1];
      res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify(status === 200 ? { ok: true, chargeId: `ch_${seen.length}`, amount: body.amount } : { ok: false }));
    });
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  process.env.GATEWAY_URL = `http://127.0.0.1:${server.address().port}`;
  ({ chargeWithRetry } = await import("../checkout.mjs"));
});

after(() => server.close());

beforeEach(() => {
  seen = [];
  statuses = [200];
});

test("returns the gateway's answer", async () => {
  const result = await chargeWithRetry(4200);
  assert.equal(result.ok, true);
  assert.equal(result.amount, 4200);
});

test("retrying after a 503 sends the same idempotency key", async () => {
  statuses = [503, 200];
  await chargeWithRetry(1500);
  assert.equal(seen.length, 2);
  assert.equal(seen[1].key, seen[0].key);
});

test("rejects after 1 try + 3 retries when the gateway stays down", async () => {
  statuses = [503];
  await assert.rejects(chargeWithRetry(990), /after 4 attempt/);
  assert.equal(seen.length, 4);
});

test("a 400 is not retried", async () => {
  statuses = [400];
  await assert.rejects(chargeWithRetry(-3));
  assert.equal(seen.length, 1);
});
