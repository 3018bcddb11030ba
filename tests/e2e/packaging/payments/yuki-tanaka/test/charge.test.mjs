import assert from "node:assert/strict";
import { createServer } from "node:http";

// Fake gateway with the same idempotency rules as the real one: a key that was
// already charged gets its first answer back and is not charged again.
// `script` decides what happens to each new (uncharged) request:
//   "ok"          charge and answer 200
//   "fail"        answer 503, nothing charged
//   "charge+500"  charge, but answer 500 (the client can't know it went through)
const fake = { script: [], seen: [], charges: [] };
const answered = new Map();

const server = createServer((req, res) => {
  const chunks = [];
  req.on("data", (c) => chunks.push(c));
  req.on("end", () => {
    const { amount, idempotencyKey } = JSON.parse(Buffer.concat(chunks).toString());
    fake.seen.push(idempotencyKey);
    const reply = (status, body) => {
      res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify(body));
    };
    if (answered.has(idempotencyKey)) return reply(200, answered.get(idempotencyKey));

    const step = fake.script.shift() ?? "ok";
    if (step === "fail") return reply(503, { ok: false, error: "unavailable" });
    const charge = { ok: true, chargeId: `ch_${fake.charges.length + 1}`, amount };
    fake.charges.push(charge);
    answered.set(idempotencyKey, charge);
    if (step === "charge+500") return reply(500, { ok: false, error: "internal" });
    reply(200, charge);
  });
});

let chargeWithRetry;

before(async () => {
  await new Promise((done) => server.listen(0, "127.0.0.1", done));
  process.env.GATEWAY_URL = `http://127.0.0.1:${server.address().port}`;
  ({ chargeWithRetry } = await import("../checkout.mjs"));
});

after(() => new Promise((done) => server.close(done)));

beforeEach(() => {
  fake.script = [];
  fake.seen = [];
  fake.charges = [];
  answered.clear();
});

describe("chargeWithRetry()", () => {
  it("returns the charge when the gateway accepts it", async () => {
    const charge = await chargeWithRetry(1200);
    assert.equal(charge.chargeId, "ch_1");
    assert.equal(fake.charges.length, 1);
  });

  it("sends one key for all attempts of one charge", async () => {
    fake.script = ["fail", "ok"];
    await chargeWithRetry(4200);
    assert.equal(fake.seen.length, 2);
    assert.equal(new Set(fake.seen).size, 1);
  });

  it("charges once when the gateway charged but answered 500", async () => {
    fake.script = ["charge+500"];
    await chargeWithRetry(4200);
    assert.equal(fake.charges.length, 1, "the customer was charged twice");
  });

  it("stops after 4 attempts and rejects", async () => {
    fake.script = ["fail", "fail", "fail", "fail"];
    await assert.rejects(chargeWithRetry(4200), /503/);
    assert.equal(fake.seen.length, 4);
    assert.equal(fake.charges.length, 0);
  });
});
