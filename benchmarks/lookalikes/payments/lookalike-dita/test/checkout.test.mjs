import { test } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

// Fake gateway: answers with the statuses queued in `replies`, then 200.
const replies = [];
const requests = [];
const gateway = createServer(async (req, res) => {
  let body = "";
  for await (const chunk of req) body += chunk;
  requests.push(JSON.parse(body));
  const status = replies.length > 0 ? replies.shift() : 200;
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify({ ok: status < 300 }));
});
await new Promise((done) => gateway.listen(0, "127.0.0.1", done));

const dir = mkdtempSync(join(tmpdir(), "dita-"));
process.env.GATEWAY_URL = `http://127.0.0.1:${gateway.address().port}`;
process.env.CHECKOUT_STATE = join(dir, "pending.json");
const { chargeWithRetry } = await import("../checkout.mjs");

test.after(() => gateway.close());

test("retries a 503 under the same key", async () => {
  requests.length = 0;
  replies.push(503);
  assert.deepEqual(await chargeWithRetry(10), { ok: true });
  assert.equal(requests.length, 2);
  assert.equal(requests[0].idempotencyKey, requests[1].idempotencyKey);
});

test("the key is on disk while the charge is unresolved", async () => {
  requests.length = 0;
  replies.push(503, 503, 503, 503);
  await assert.rejects(chargeWithRetry(20), /after 3 retries/);
  assert.equal(requests.length, 4);
  const saved = JSON.parse(readFileSync(process.env.CHECKOUT_STATE, "utf8"));
  assert.equal(saved["20"].key, requests[0].idempotencyKey);
});

test("a 400 is final", async () => {
  requests.length = 0;
  replies.push(400);
  await assert.rejects(chargeWithRetry(30), /declined with HTTP 400/);
  assert.equal(requests.length, 1);
});
