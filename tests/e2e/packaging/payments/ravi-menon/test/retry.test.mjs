import { test, before, after, beforeEach } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fakeGateway } from "../test-support/fake-gateway.mjs";

const gw = fakeGateway();
const state = mkdtempSync(join(tmpdir(), "checkout-state-"));
let chargeWithRetry;

before(async () => {
  process.env.GATEWAY_URL = await gw.listen();
  process.env.CHECKOUT_STATE_DIR = state;
  ({ chargeWithRetry } = await import("../checkout.mjs"));
});
after(() => {
  gw.close();
  rmSync(state, { recursive: true, force: true });
});
beforeEach(() => rmSync(join(state, "pending.json"), { force: true }));

test("503 then 200: one key for both requests", async () => {
  gw.plan([503, 200]);
  const out = await chargeWithRetry(4200);
  assert.equal(out.ok, true);
  assert.equal(gw.log.length, 2);
  assert.equal(gw.log[1].key, gw.log[0].key);
});

test("keeps trying through 3 retries, then fails; the waits grow", async () => {
  gw.plan([503]);
  await assert.rejects(() => chargeWithRetry(800), /after 4 attempts/);
  assert.equal(gw.log.length, 4);
  const waits = gw.log.slice(1).map((r, i) => r.t - gw.log[i].t);
  assert.ok(waits[0] >= 140 && waits[1] > waits[0] && waits[2] > waits[1], `waits: ${waits.map(Math.round).join("/")}`);
});

test("a 400 is not retried", async () => {
  gw.plan([400]);
  await assert.rejects(() => chargeWithRetry(-1));
  assert.equal(gw.log.length, 1);
});

test("every attempt carries the key in the body", async () => {
  gw.plan([503, 503, 200]);
  await chargeWithRetry(12);
  assert.equal(gw.log.length, 3);
  assert.ok(gw.log.every((r) => typeof r.key === "string" && r.key === gw.log[0].key));
});
