import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { fakeGateway } from "../test-support/fake-gateway.mjs";

const gw = fakeGateway();
const home = mkdtempSync(join(tmpdir(), "checkout-home-"));
const script = fileURLToPath(new URL("../test-support/charge.mjs", import.meta.url));
let url;

before(async () => {
  url = await gw.listen();
});
after(() => {
  gw.close();
  rmSync(home, { recursive: true, force: true });
});

function charge(amount) {
  // HOME points at a scratch folder: the key is kept in ~/.checkout of the "machine"
  const env = { ...process.env, GATEWAY_URL: url, HOME: home };
  delete env.CHECKOUT_STATE_DIR;
  const child = spawn(process.execPath, [script, String(amount)], { env, stdio: "ignore" });
  return { child, done: new Promise((r) => child.on("exit", (code) => r(code))) };
}

test("a restart after the request went out reuses the same key", { timeout: 20000 }, async () => {
  gw.plan(["hang", 200]);
  const first = charge(6100);
  await gw.waitFor(1);
  first.child.kill("SIGKILL");
  await first.done;

  const second = charge(6100);
  assert.equal(await second.done, 0);
  assert.equal(gw.log.length, 2);
  assert.equal(gw.log[1].key, gw.log[0].key, "new process, new key: that is a second charge");
});
