import { afterAll, beforeAll, beforeEach, describe, expect, it } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fakeGateway } from "./fake-gateway";

const gateway = fakeGateway();
const scratch = mkdtempSync(join(tmpdir(), "checkout-"));
const pending = join(scratch, "pending");
process.env.GATEWAY_URL = gateway.url;
process.env.CHECKOUT_PENDING_DIR = pending;
const { chargeWithRetry } = await import("../checkout.mjs");

afterAll(() => {
  gateway.stop();
  rmSync(scratch, { recursive: true, force: true });
});

beforeEach(() => rmSync(pending, { recursive: true, force: true }));

describe("chargeWithRetry", () => {
  it("retries a 503 with the same idempotency key", async () => {
    gateway.script(503, 200);
    const result = (await chargeWithRetry(4200)) as { ok: boolean };
    expect(result.ok).toBe(true);
    expect(gateway.seen.length).toBe(2);
    expect(gateway.seen[1]?.key).toBe(gateway.seen[0]?.key);
  });

  it("has the key on disk before the request leaves", async () => {
    let onDisk: string | null | undefined;
    gateway.script(503, 200);
    const file = join(pending, "pending-1000.json");
    gateway.onRequest(() => {
      onDisk ??= existsSync(file) ? JSON.parse(readFileSync(file, "utf8")).key : null;
    });
    await chargeWithRetry(1000);
    expect(onDisk).toBe(gateway.seen[0]?.key);
    expect(existsSync(file)).toBe(false); // cleared once the charge went through
  });

  it("gives up after 4 attempts with growing waits", async () => {
    gateway.script(503);
    await expect(chargeWithRetry(900)).rejects.toThrow(/after 4 attempts/);
    expect(gateway.seen.length).toBe(4);
    expect(new Set(gateway.seen.map((s) => s.key)).size).toBe(1);
    const gaps = gateway.seen.slice(1).map((s, i) => s.at - gateway.seen[i]!.at);
    expect(gaps[1]!).toBeGreaterThan(gaps[0]! * 0.99);
    expect(gaps[2]!).toBeGreaterThan(gaps[1]! * 0.99);
    expect(gaps[2]!).toBeGreaterThanOrEqual(190);
  });

  it("does not retry a 400", async () => {
    gateway.script(400);
    await expect(chargeWithRetry(-5)).rejects.toThrow(/400/);
    expect(gateway.seen.length).toBe(1);
  });

  it("reuses the saved key after the process is killed mid-charge", async () => {
    gateway.script("hang", 200);
    const env = { ...process.env };
    const first = Bun.spawn(["node", join(import.meta.dir, "charge-once.mjs"), "7300"], { cwd: scratch, env });
    while (gateway.seen.length < 1) await Bun.sleep(10);
    first.kill(9);
    await first.exited;
    const second = Bun.spawn(["node", join(import.meta.dir, "charge-once.mjs"), "7300"], { cwd: scratch, env });
    expect(await second.exited).toBe(0);
    expect(gateway.seen.length).toBe(2);
    expect(gateway.seen[1]?.key).toBe(gateway.seen[0]?.key);
  }, 15000);
});
