// Runs the client against the gateway stub from the handout (copied to ./gateway),
// started on its default port so checkout.mjs can use its default address.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

import { chargeWithRetry } from "../checkout.mjs";

const STUB = "http://localhost:8099";
const serverPath = fileURLToPath(new URL("../gateway/server.mjs", import.meta.url));

let gateway;
let gatewayLog = "";

async function getJSON(path) {
  const res = await fetch(`${STUB}${path}`);
  return res.json();
}

before(async () => {
  gateway = spawn(process.execPath, [serverPath, "--port", "8099"], {
    stdio: ["ignore", "ignore", "pipe"],
  });
  gateway.stderr.on("data", (chunk) => (gatewayLog += chunk));

  // wait until the stub answers
  for (let i = 0; i < 50; i++) {
    if (gateway.exitCode !== null) {
      throw new Error(`gateway exited with ${gateway.exitCode}:\n${gatewayLog}`);
    }
    try {
      await getJSON("/counts");
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  throw new Error(`gateway did not start on 8099:\n${gatewayLog}`);
});

after(async () => {
  if (gateway && gateway.exitCode === null) {
    const exited = new Promise((resolve) => gateway.once("exit", resolve));
    gateway.kill();
    await exited;
  }
});

// The stub's default (transient) scenario answers 503 to the very first charge,
// so this test has to run first.
test("a charge that meets a 503 is retried as the same payment", async () => {
  const answer = await chargeWithRetry(4200);

  assert.equal(answer.ok, true);
  assert.equal(answer.amount, 4200);

  const counts = await getJSON("/counts");
  assert.equal(counts.requests, 2, "expected the 503 and one retry");
  assert.equal(counts.distinct_keys, 1, "the retry used a new idempotency key");
  assert.equal(counts.charges, 1, "the customer was charged more than once");
});

test("the retry sends the same key as the first attempt", async () => {
  const requests = await getJSON("/requests");
  assert.deepEqual(
    requests.slice(0, 2).map((r) => [r.status, r.attempt]),
    [
      [503, 1],
      [200, 2],
    ],
  );
  assert.equal(requests[1].key, requests[0].key);
});

test("two calls are two payments", async () => {
  const before = await getJSON("/counts");
  await chargeWithRetry(100);
  const after = await getJSON("/counts");

  assert.equal(after.distinct_keys - before.distinct_keys, 1);
  assert.equal(after.charges - before.charges, 1);
});
