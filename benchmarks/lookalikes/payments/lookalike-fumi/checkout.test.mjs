// node --test checkout.test.mjs
import test from "node:test";
import assert from "node:assert";
import { createServer } from "node:http";
import { mkdtempSync } from "node:fs";
import { join } from "node:path";
import { tmpdir } from "node:os";

const statuses = [];
const keys = [];
const server = createServer((req, res) => {
  let s = "";
  req.setEncoding("utf8");
  req.on("data", (d) => (s += d));
  req.on("end", () => {
    keys.push(JSON.parse(s).idempotencyKey);
    const code = statuses.shift() || 200;
    res.writeHead(code, { "content-type": "application/json" });
    res.end(code === 200 ? '{"ok":true,"chargeId":"ch_1"}' : '{"ok":false,"error":"down"}');
  });
});
await new Promise((r) => server.listen(0, r));
process.env.GATEWAY_URL = `http://localhost:${server.address().port}`;
process.env.KEYS_PATH = join(mkdtempSync(join(tmpdir(), "fumi-")), "keys.json");
const { chargeWithRetry } = await import("./checkout.mjs");
test.after(() => server.close());

test("retries after 503 and keeps the idempotency key", async () => {
  keys.length = 0;
  statuses.push(503);
  const r = await chargeWithRetry(500);
  assert.strictEqual(r.chargeId, "ch_1");
  assert.strictEqual(keys.length, 2);
  assert.strictEqual(keys[0], keys[1]);
});

test("throws after 4 failed attempts", async () => {
  keys.length = 0;
  statuses.push(503, 503, 503, 503, 503);
  await assert.rejects(chargeWithRetry(501), /charge 501 failed: gateway said 503/);
  assert.strictEqual(keys.length, 4);
  statuses.length = 0;
});

test("422 is not retried", async () => {
  keys.length = 0;
  statuses.push(422);
  await assert.rejects(chargeWithRetry(502));
  assert.strictEqual(keys.length, 1);
});
