import test from "node:test";
import assert from "node:assert";
import http from "node:http";

const server = http.createServer((req, res) => {
  let data = "";
  req.on("data", (c) => (data += c));
  req.on("end", () => {
    const body = JSON.parse(data);
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({ ok: true, charged: body.amount }));
  });
});
await new Promise((r) => server.listen(0, r));
process.env.GATEWAY_URL = `http://localhost:${server.address().port}`;
const { chargeWithRetry } = await import("./checkout.mjs");

test("charge goes through", async () => {
  const res = await chargeWithRetry(50);
  assert.strictEqual(res.ok, true);
  assert.strictEqual(res.charged, 50);
});

test("works for several amounts", async () => {
  for (const amount of [1, 999, 25000]) {
    const res = await chargeWithRetry(amount);
    assert.strictEqual(res.charged, amount);
  }
});

test.after(() => server.close());
