import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createServer } from "node:http";

let queue = [];
const hits = [];
const server = createServer((req, res) => {
  let raw = "";
  req.on("data", (c) => (raw += c));
  req.on("end", () => {
    const body = JSON.parse(raw || "{}");
    hits.push({ at: Date.now(), amount: body.amount, key: req.headers["idempotency-key"] ?? body.idempotencyKey });
    const status = queue.length > 1 ? queue.shift() : (queue[0] ?? 200);
    res.writeHead(status, { "content-type": "application/json" });
    res.end(JSON.stringify(status < 300 ? { ok: true, chargeId: `ch_${hits.length}`, amount: body.amount } : { ok: false, error: "unavailable" }));
  });
});

let chargeWithRetry;

beforeAll(async () => {
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  process.env.GATEWAY_URL = `http://127.0.0.1:${server.address().port}`;
  ({ chargeWithRetry } = await import("../checkout.mjs"));
});

afterAll(() => new Promise((r) => server.close(r)));

beforeEach(() => {
  queue = [200];
  hits.length = 0;
});

describe("chargeWithRetry", () => {
  it("returns the gateway's JSON on success", async () => {
    await expect(chargeWithRetry(990)).resolves.toMatchObject({ ok: true, amount: 990 });
  });

  it("keeps the same idempotency key when it retries a 503", async () => {
    queue = [503, 200];

    await chargeWithRetry(4200);

    expect(hits.map((h) => h.key)).toEqual([hits[0].key, hits[0].key]);
  });

  it("throws after 4 attempts when the gateway is down", async () => {
    queue = [503];

    await expect(chargeWithRetry(310)).rejects.toThrow(/503 on attempt 4/);
    expect(hits).toHaveLength(4);
  });

  it("waits longer before each retry", async () => {
    queue = [503];

    await chargeWithRetry(77).catch(() => {});

    const gaps = hits.slice(1).map((h, i) => h.at - hits[i].at);
    expect(gaps).toHaveLength(3);
    expect(gaps[1]).toBeGreaterThan(gaps[0]);
    expect(gaps[2]).toBeGreaterThan(gaps[1]);
  });
});
