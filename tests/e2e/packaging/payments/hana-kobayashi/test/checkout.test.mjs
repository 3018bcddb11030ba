import { after, before, beforeEach, describe, it } from "node:test";
import assert from "node:assert/strict";
import { once } from "node:events";
import { createServer } from "node:http";

// The gateway answers each request with the next status in `statuses`
// (the last one repeats) and records what it received.
const statuses = [];
const received = [];
const server = createServer(async (req, res) => {
  let text = "";
  for await (const part of req) text += part;
  const body = JSON.parse(text);
  received.push({ body, header: req.headers["idempotency-key"] });
  const status = statuses[Math.min(received.length, statuses.length) - 1] ?? 200;
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify({ ok: status === 200, amount: body.amount }));
});

describe("chargeWithRetry", () => {
  let chargeWithRetry;

  before(async () => {
    server.listen(0, "127.0.0.1");
    await once(server, "listening");
    process.env.GATEWAY_URL = `http://127.0.0.1:${server.address().port}`;
    ({ chargeWithRetry } = await import("../checkout.mjs"));
  });

  after(() => server.close());

  beforeEach(() => {
    statuses.length = 0;
    received.length = 0;
  });

  it("retries a 503 with the same idempotency key", async () => {
    statuses.push(503, 200);

    const result = await chargeWithRetry(1800);

    assert.deepEqual(result, { ok: true, amount: 1800 });
    assert.equal(received.length, 2);
    assert.equal(received[1].body.idempotencyKey, received[0].body.idempotencyKey);
  });

  it("sends the key in the Idempotency-Key header too", async () => {
    await chargeWithRetry(60);

    assert.equal(received[0].header, received[0].body.idempotencyKey);
  });

  it("stops after 4 attempts and rejects", async () => {
    statuses.push(503);

    await assert.rejects(chargeWithRetry(75), /charge failed \(HTTP 503\)/);
    assert.equal(received.length, 4);
  });

  it("does not retry a 402", async () => {
    statuses.push(402);

    await assert.rejects(chargeWithRetry(5000), /HTTP 402/);
    assert.equal(received.length, 1);
  });

  it("uses a new key for a new charge", async () => {
    await chargeWithRetry(60);
    await chargeWithRetry(60);

    assert.notEqual(received[0].body.idempotencyKey, received[1].body.idempotencyKey);
  });
});
