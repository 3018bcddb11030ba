import { afterAll, beforeAll, beforeEach, expect, test } from "vitest";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startGateway } from "./gateway.mjs";

let gateway;
let stateDir;
let chargeWithRetry;

beforeAll(async () => {
  gateway = await startGateway();
  stateDir = await mkdtemp(join(tmpdir(), "checkout-retry-"));
  process.env.GATEWAY_URL = gateway.url;
  process.env.CHECKOUT_STATE_DIR = stateDir;
  process.env.CHECKOUT_TIMEOUT_MS = "300";
  ({ chargeWithRetry } = await import("../checkout.mjs"));
});

afterAll(async () => {
  await gateway.close();
  await rm(stateDir, { recursive: true, force: true });
});

beforeEach(() => gateway.reset());

test("a 503 followed by a 200 is retried under the same key", async () => {
  gateway.script(503, 200);

  const result = await chargeWithRetry(1250);

  expect(result).toMatchObject({ ok: true, amount: 1250 });
  expect(gateway.requests).toHaveLength(2);
  expect(gateway.keys().size).toBe(1);
});

test("an outage rejects after 4 attempts, waiting longer before each retry", async () => {
  gateway.script(503);

  await expect(chargeWithRetry(3000)).rejects.toThrow(/failed after 4 attempts/);

  expect(gateway.requests).toHaveLength(4);
  const at = gateway.requests.map((r) => r.at);
  const gaps = at.slice(1).map((t, i) => t - at[i]);
  expect(gaps[0]).toBeGreaterThanOrEqual(90);
  expect(gaps[1]).toBeGreaterThan(gaps[0]);
  expect(gaps[2]).toBeGreaterThan(gaps[1]);
});

test("a 400 is not retried", async () => {
  gateway.script(400);

  await expect(chargeWithRetry(-5)).rejects.toThrow(/400/);

  expect(gateway.requests).toHaveLength(1);
});

test("an attempt that times out is retried with the same key", { timeout: 4000 }, async () => {
  gateway.script("hang", 200);

  const result = await chargeWithRetry(4100);

  expect(result.ok).toBe(true);
  expect(gateway.requests).toHaveLength(2);
  expect(gateway.keys().size).toBe(1);
});
