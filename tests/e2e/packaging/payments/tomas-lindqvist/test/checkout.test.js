import { afterAll, beforeAll, beforeEach, expect, test } from "vitest";
import { startFakeGateway } from "./support/fake-gateway.js";

let gateway;
let chargeWithRetry;

beforeAll(async () => {
  gateway = await startFakeGateway();
  process.env.GATEWAY_URL = gateway.url; // read by checkout.mjs when it loads
  ({ chargeWithRetry } = await import("../checkout.mjs"));
});

afterAll(() => gateway.close());

beforeEach(() => gateway.reset());

test("charges once and returns the gateway's body", async () => {
  const result = await chargeWithRetry(2599);

  expect(result).toMatchObject({ ok: true, amount: 2599 });
  expect(gateway.state.requests).toHaveLength(1);
  expect(gateway.state.requests[0].idempotencyKey).toEqual(expect.any(String));
});

test("retry after a 503 reuses the idempotency key (one order, one key)", async () => {
  gateway.state.responses = [503, 200];

  await chargeWithRetry(4200);

  const keys = gateway.state.requests.map((r) => r.idempotencyKey);
  expect(keys).toHaveLength(2);
  expect(keys[1]).toBe(keys[0]);
});

test("two separate charges get two different keys", async () => {
  await chargeWithRetry(100);
  await chargeWithRetry(100);

  const [a, b] = gateway.state.requests.map((r) => r.idempotencyKey);
  expect(a).not.toBe(b);
  expect(gateway.state.charges.size).toBe(2);
});

test("outage: 4 attempts with growing gaps, then it rejects", async () => {
  gateway.state.responses = [503, 503, 503, 503];

  await expect(chargeWithRetry(4200)).rejects.toThrow(/after 4 attempt/);

  const t = gateway.state.requests.map((r) => r.at);
  expect(t).toHaveLength(4);
  expect(t[2] - t[1]).toBeGreaterThan(t[1] - t[0]);
  expect(t[3] - t[2]).toBeGreaterThan(t[2] - t[1]);
});
