import { createServer } from "node:http";

// A small fake gateway. It remembers which keys it already charged (like the
// real one), and `plan` says how to answer the next requests: a status code,
// or "drop" to charge and then cut the connection without an answer.
const gw = { plan: [], requests: [], charged: new Map() };

const server = createServer((req, res) => {
  let raw = "";
  req.on("data", (chunk) => (raw += chunk));
  req.on("end", () => {
    const body = JSON.parse(raw);
    const key = body.idempotencyKey ?? req.headers["idempotency-key"];
    gw.requests.push({ key, header: req.headers["idempotency-key"], amount: body.amount });

    if (gw.charged.has(key)) {
      res.writeHead(200, { "content-type": "application/json" });
      return res.end(JSON.stringify(gw.charged.get(key)));
    }
    const step = gw.plan.length ? gw.plan.shift() : 200;
    if (step === 200 || step === "drop") {
      const receipt = { ok: true, chargeId: `ch_${gw.charged.size + 1}`, amount: body.amount };
      gw.charged.set(key, receipt);
      if (step === "drop") return req.socket.destroy();
      res.writeHead(200, { "content-type": "application/json" });
      return res.end(JSON.stringify(receipt));
    }
    res.writeHead(step, { "content-type": "application/json" });
    res.end(JSON.stringify({ ok: false }));
  });
});

let chargeWithRetry;

beforeAll(async () => {
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  process.env.GATEWAY_URL = `http://127.0.0.1:${server.address().port}`;
  ({ chargeWithRetry } = await import("../checkout.mjs"));
});

afterAll(() => new Promise((resolve) => server.close(resolve)));

beforeEach(() => {
  gw.plan = [];
  gw.requests = [];
  gw.charged.clear();
});

describe("chargeWithRetry", () => {
  test("resolves with the gateway's receipt", async () => {
    await expect(chargeWithRetry(1500)).resolves.toEqual({ ok: true, chargeId: "ch_1", amount: 1500 });
    expect(gw.requests).toHaveLength(1);
  });

  test("a 503 then a retry is one payment under one key", async () => {
    gw.plan = [503, 200];

    await chargeWithRetry(4200);

    expect(gw.requests).toHaveLength(2);
    expect(new Set(gw.requests.map((r) => r.key)).size).toBe(1);
    expect(gw.charged.size).toBe(1);
  });

  test("a lost answer is retried with the same key and not charged twice", async () => {
    gw.plan = ["drop"];

    const receipt = await chargeWithRetry(4200);

    expect(receipt.chargeId).toBe("ch_1");
    expect(gw.requests[1].key).toBe(gw.requests[0].key);
    expect(gw.charged.size).toBe(1);
  });

  test("gives up with an error after 4 attempts", async () => {
    gw.plan = [503, 503, 503, 503];

    await expect(chargeWithRetry(4200)).rejects.toMatchObject({ status: 503 });
    expect(gw.requests).toHaveLength(4);
    expect(gw.charged.size).toBe(0);
  });

  test("a 402 is final", async () => {
    gw.plan = [402];

    await expect(chargeWithRetry(4200)).rejects.toMatchObject({ status: 402 });
    expect(gw.requests).toHaveLength(1);
  });
});
