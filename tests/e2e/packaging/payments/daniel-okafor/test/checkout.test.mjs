import test from "ava";
import { fakeGateway } from "./_gateway.mjs";

const gateway = fakeGateway();
let chargeWithRetry;

test.before(async () => {
  process.env.GATEWAY_URL = await gateway.listen();
  ({ chargeWithRetry } = await import("../checkout.mjs"));
});

test.after.always(() => gateway.close());

test.beforeEach(() => {
  gateway.state.script = [200];
  gateway.state.log = [];
});

// One gateway for the whole file, so the tests run one at a time.

test.serial("resolves with the gateway's answer", async (t) => {
  const answer = await chargeWithRetry(2500);
  t.like(answer, { ok: true, amount: 2500 });
  t.is(gateway.state.log.length, 1);
});

test.serial("a 503 is retried under the same idempotency key", async (t) => {
  gateway.state.script = [503, 200];

  await chargeWithRetry(4200);

  const keys = gateway.state.log.map((r) => r.bodyKey);
  t.is(keys.length, 2);
  t.is(keys[1], keys[0], "retry went out with a new key: that is a second payment");
});

test.serial("an outage ends in a rejection after 4 attempts", async (t) => {
  gateway.state.script = [503];

  const error = await t.throwsAsync(chargeWithRetry(800));

  t.regex(error.message, /after 4 attempt/);
  t.is(gateway.state.log.length, 4);
});

test.serial("a 402 is final and not retried", async (t) => {
  gateway.state.script = [402];

  await t.throwsAsync(chargeWithRetry(990), { message: /402/ });
  t.is(gateway.state.log.length, 1);
});
