import { strict as assert } from "node:assert";
import http from "node:http";

// gateway double: `next` is the list of statuses still to give out; the last one sticks
const gateway = { next: [200], log: [] };
const server = http.createServer((req, res) => {
  const parts = [];
  req.on("data", (p) => parts.push(p));
  req.on("end", () => {
    const body = JSON.parse(Buffer.concat(parts));
    gateway.log.push({ key: body.idempotencyKey, headerKey: req.headers["idempotency-key"], amount: body.amount });
    const status = gateway.next.length > 1 ? gateway.next.shift() : gateway.next[0];
    res.writeHead(status, { "content-type": "application/json" });
    res.end(JSON.stringify(status === 200 ? { ok: true, chargeId: "ch_" + gateway.log.length, amount: body.amount } : { ok: false }));
  });
});

let chargeWithRetry;

before(async () => {
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  process.env.GATEWAY_URL = `http://127.0.0.1:${server.address().port}`;
  ({ chargeWithRetry } = await import("../checkout.mjs"));
});

after((done) => server.close(done));

beforeEach(() => {
  gateway.next = [200];
  gateway.log = [];
});

describe("chargeWithRetry", () => {
  it("charges and returns the gateway's answer", async () => {
    const answer = await chargeWithRetry(2000);
    assert.equal(answer.ok, true);
    assert.equal(answer.amount, 2000);
  });

  it("uses one idempotency key across a 503 and its retry", async () => {
    gateway.next = [503, 200];
    await chargeWithRetry(2000);
    assert.equal(gateway.log.length, 2);
    assert.equal(gateway.log[0].key, gateway.log[1].key);
  });

  it("rejects after the first attempt and 3 retries", async () => {
    gateway.next = [503];
    await assert.rejects(() => chargeWithRetry(2000), { name: "ChargeError", status: 503 });
    assert.equal(gateway.log.length, 4);
  });

  it("treats a 4xx as final", async () => {
    gateway.next = [422];
    await assert.rejects(() => chargeWithRetry(2000), { status: 422 });
    assert.equal(gateway.log.length, 1);
  });
});
