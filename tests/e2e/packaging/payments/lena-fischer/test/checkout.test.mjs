// Integration tests against the handout's gateway stub, which must already be running:
//   node gateway/server.mjs        (in another terminal, port 8099)
// The stub keeps its counts between runs, so every test compares before/after.
import { describe, it, before } from "node:test";
import assert from "node:assert/strict";

import { chargeWithRetry } from "../checkout.mjs";

const STUB = "http://localhost:8099";

async function stub(path) {
  const res = await fetch(STUB + path);
  assert.equal(res.status, 200, `GET ${path}`);
  return res.json();
}

describe("chargeWithRetry against the stub", () => {
  before(async () => {
    try {
      await stub("/counts");
    } catch (err) {
      throw new Error("gateway stub not reachable on localhost:8099, start `node gateway/server.mjs` first", {
        cause: err,
      });
    }
  });

  it("one call is one key and one charge, even when it had to retry", async () => {
    const countsBefore = await stub("/counts");

    const answer = await chargeWithRetry(4200);

    const countsAfter = await stub("/counts");
    assert.equal(answer.ok, true);
    assert.equal(answer.amount, 4200);
    assert.equal(countsAfter.distinct_keys - countsBefore.distinct_keys, 1, "more than one key for one charge");
    assert.equal(countsAfter.charges - countsBefore.charges, 1, "charged more than once");
  });

  it("every request of one call carries the key the gateway answered with", async () => {
    const countsBefore = await stub("/counts");

    const answer = await chargeWithRetry(990);

    const mine = (await stub("/requests")).slice(countsBefore.requests);
    assert.ok(mine.length >= 1);
    assert.ok(mine.every((r) => r.key === answer.idempotencyKey), JSON.stringify(mine));
    assert.equal(mine.filter((r) => r.status === 200).length, 1);
  });

  it("two calls are two payments with different keys", async () => {
    const countsBefore = await stub("/counts");

    const first = await chargeWithRetry(100);
    const second = await chargeWithRetry(100);

    const countsAfter = await stub("/counts");
    assert.notEqual(first.idempotencyKey, second.idempotencyKey);
    assert.equal(countsAfter.charges - countsBefore.charges, 2);
  });
});
