import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";

let server;
let chargeWithRetry;
const received = [];

before(async () => {
  server = createServer((req, res) => {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => {
      received.push(JSON.parse(body));
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ status: "succeeded", id: "ch_test_1" }));
    });
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  process.env.GATEWAY_URL = `http://127.0.0.1:${server.address().port}`;
  ({ chargeWithRetry } = await import("../checkout.mjs"));
});

after(() => server.close());

test("charges the amount and returns the gateway response", async () => {
  const result = await chargeWithRetry(4200);
  assert.deepEqual(result, { status: "succeeded", id: "ch_test_1" });
  assert.equal(received.at(-1).amount, 4200);
});

test("sends an idempotency key", async () => {
  await chargeWithRetry(100);
  assert.equal(typeof received.at(-1).idempotencyKey, "string");
});
