import { createServer } from "node:http";

let server;
let requests = [];
let answers = []; // status per request; the last one repeats
let chargeWithRetry;

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => {
      const parsed = JSON.parse(body);
      requests.push({ body: parsed, header: req.headers["idempotency-key"], at: Date.now() });
      const status = answers[Math.min(requests.length, answers.length) - 1];
      res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify(status === 200 ? { ok: true, chargeId: "ch_1", amount: parsed.amount } : { ok: false }));
    });
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  process.env.GATEWAY_URL = `http://127.0.0.1:${server.address().port}`;
  ({ chargeWithRetry } = await import("../checkout.mjs"));
});

afterAll(() => new Promise((resolve) => server.close(resolve)));

beforeEach(() => {
  requests = [];
  answers = [200];
});

const keys = () => new Set(requests.map((r) => r.body.idempotencyKey));

test("resolves with the gateway's answer", async () => {
  await expect(chargeWithRetry(500)).resolves.toEqual({ ok: true, chargeId: "ch_1", amount: 500 });
  expect(requests).toHaveLength(1);
});

test("a retry after a 503 reuses the idempotency key", async () => {
  answers = [503, 200];

  await chargeWithRetry(1999);

  expect(requests).toHaveLength(2);
  expect(keys().size).toBe(1);
});

test("gives up after 4 attempts if the gateway stays down", async () => {
  answers = [503];

  await expect(chargeWithRetry(800)).rejects.toThrow("503");
  expect(requests).toHaveLength(4);
});

test("does not retry a 400", async () => {
  answers = [400];

  await expect(chargeWithRetry(-1)).rejects.toThrow("400");
  expect(requests).toHaveLength(1);
});

test("two charges get two different keys", async () => {
  await chargeWithRetry(100);
  await chargeWithRetry(100);

  expect(keys().size).toBe(2);
});
