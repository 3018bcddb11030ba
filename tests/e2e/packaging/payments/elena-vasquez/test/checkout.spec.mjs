import assert from "node:assert/strict";
import { stubGateway } from "./helpers/stub.mjs";

describe("chargeWithRetry", function () {
  let stub;
  let chargeWithRetry;

  before(async function () {
    stub = await stubGateway();
    process.env.GATEWAY_URL = stub.url;
    ({ chargeWithRetry } = await import("../checkout.mjs"));
  });

  after(function (done) {
    stub.server.close(done);
  });

  beforeEach(function () {
    stub.codes = [200];
    stub.requests = [];
  });

  it("sends the same idempotency key when it retries after a 503", async function () {
    stub.codes = [503, 200];
    await chargeWithRetry(4200);
    assert.equal(stub.requests.length, 2);
    assert.equal(stub.requests[1].key, stub.requests[0].key);
  });

  it("uses a different key for a second charge", async function () {
    await chargeWithRetry(100);
    await chargeWithRetry(100);
    assert.notEqual(stub.requests[0].key, stub.requests[1].key);
  });

  it("throws once it runs out of attempts", async function () {
    stub.codes = [503];
    await assert.rejects(chargeWithRetry(100), /failed after 3 attempts/);
    assert.equal(stub.requests.length, 3);
  });
});
