import { suite } from "uvu";
import * as assert from "uvu/assert";
import { createGateway } from "./helpers/gateway.mjs";

const checkout = suite("chargeWithRetry");
const gw = createGateway();
let chargeWithRetry;

checkout.before(async () => {
  process.env.GATEWAY_URL = await gw.start();
  ({ chargeWithRetry } = await import("../checkout.mjs"));
});

checkout.after(() => gw.stop());

checkout.before.each(() => {
  gw.requests.length = 0;
  gw.respond = () => 200;
});

checkout("503 then 200: one payment, one key", async () => {
  gw.respond = (n) => (n === 0 ? 503 : 200);

  const res = await chargeWithRetry(4200);

  assert.is(res.ok, true);
  assert.is(gw.requests.length, 2);
  assert.is(new Set(gw.requests.map((r) => r.key)).size, 1, "both attempts must carry the same key");
});

checkout("outage: rejects after 4 attempts", async () => {
  gw.respond = () => 503;

  let error;
  try {
    await chargeWithRetry(1000);
  } catch (e) {
    error = e;
  }

  assert.ok(error, "must reject");
  assert.match(error.message, "after 4 attempts");
  assert.is(gw.requests.length, 4);
});

checkout("400 is not retried", async () => {
  gw.respond = () => 400;

  try {
    await chargeWithRetry(-10);
    assert.unreachable("should have thrown");
  } catch (e) {
    assert.match(e.message, "400");
  }
  assert.is(gw.requests.length, 1);
});

checkout("two charges in parallel get different keys", async () => {
  await Promise.all([chargeWithRetry(10), chargeWithRetry(20)]);

  assert.is(gw.requests.length, 2);
  assert.is.not(gw.requests[0].key, gw.requests[1].key);
});

checkout.run();
