import { describe, it, before, after } from "node:test";
import assert from "node:assert";
import { createServer } from "node:http";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PaymentClient } from "./checkout.mjs";

describe("PaymentClient", () => {
  let server, baseUrl;
  let script = [];
  const keys = [];

  before(async () => {
    server = createServer((req, res) => {
      let data = "";
      req.on("data", (d) => (data += d));
      req.on("end", () => {
        keys.push(req.headers["idempotency-key"]);
        const status = script.length ? script.shift() : 200;
        res.statusCode = status;
        res.setHeader("content-type", "application/json");
        res.end(JSON.stringify({ ok: status === 200, amount: JSON.parse(data).amount }));
      });
    });
    await new Promise((ok) => server.listen(0, ok));
    baseUrl = `http://127.0.0.1:${server.address().port}`;
    process.env.PAYMENTS_STATE = join(await mkdtemp(join(tmpdir(), "bela-")), "keys.json");
  });

  after(() => server.close());

  it("keeps the key across a 503", async () => {
    keys.length = 0;
    script = [503];
    const client = new PaymentClient({ baseUrl });
    const out = await client.charge(990);
    assert.strictEqual(out.ok, true);
    assert.deepStrictEqual(keys.length, 2);
    assert.strictEqual(keys[0], keys[1]);
  });

  it("does not retry a 400", async () => {
    keys.length = 0;
    script = [400];
    await assert.rejects(new PaymentClient({ baseUrl }).charge(5), /HTTP 400/);
    assert.strictEqual(keys.length, 1);
  });

  it("stops after 1 + 3 attempts", async () => {
    keys.length = 0;
    script = [503, 503, 503, 503, 503];
    await assert.rejects(new PaymentClient({ baseUrl }).charge(7));
    assert.strictEqual(keys.length, 4);
    assert.strictEqual(new Set(keys).size, 1);
  });
});
