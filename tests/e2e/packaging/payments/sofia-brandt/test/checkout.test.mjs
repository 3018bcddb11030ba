import t from "tap";
import { createServer } from "node:http";

// A local gateway: `replies` holds the status for each incoming request in turn
// (the last one repeats), `calls` what the client sent.
let replies = [200];
let calls = [];
const gateway = createServer((req, res) => {
  let data = "";
  req.on("data", (c) => (data += c));
  req.on("end", () => {
    const body = JSON.parse(data);
    calls.push({ at: Date.now(), key: body.idempotencyKey, header: req.headers["idempotency-key"], amount: body.amount });
    const status = replies[Math.min(calls.length, replies.length) - 1];
    res.writeHead(status, { "content-type": "application/json" });
    res.end(JSON.stringify(status === 200 ? { ok: true, chargeId: `ch_${calls.length}`, amount: body.amount } : { ok: false }));
  });
});
await new Promise((r) => gateway.listen(0, "127.0.0.1", r));
t.teardown(() => gateway.close());

process.env.GATEWAY_URL = `http://127.0.0.1:${gateway.address().port}`;
const { chargeWithRetry } = await import("../checkout.mjs");

t.beforeEach(() => {
  replies = [200];
  calls = [];
});

t.test("the retry after a 503 reuses the key", async (t) => {
  replies = [503, 200];
  const result = await chargeWithRetry(3100);
  t.match(result, { ok: true, amount: 3100 });
  t.equal(calls.length, 2, "two requests");
  t.equal(calls[1].key, calls[0].key, "same idempotency key on both requests");
});

t.test("gives up after 4 attempts when the gateway stays down", async (t) => {
  replies = [503];
  await t.rejects(chargeWithRetry(640), /not made \(attempts: 503, 503, 503, 503\)/);
  t.equal(calls.length, 4);
  const gaps = calls.slice(1).map((c, i) => c.at - calls[i].at);
  t.ok(gaps[1] > gaps[0] && gaps[2] > gaps[1], `backoff grows: ${gaps.join(", ")} ms`);
});

t.test("a 422 is not retried", async (t) => {
  replies = [422];
  await t.rejects(chargeWithRetry(-1));
  t.equal(calls.length, 1);
});

t.test("separate payments get separate keys", async (t) => {
  await chargeWithRetry(100);
  await chargeWithRetry(100);
  t.not(calls[0].key, calls[1].key);
});
