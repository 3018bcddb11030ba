import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { chargeWithRetry } from "../checkout.mjs";

// Stands in for the gateway: `statuses` are answered in order, the last one repeats.
function fakeGateway(...statuses) {
  const calls = [];
  const fetchMock = vi.fn(async (url, init) => {
    const body = JSON.parse(init.body);
    calls.push({ url, key: body.idempotencyKey ?? init.headers?.["idempotency-key"], amount: body.amount, at: performance.now() });
    const status = statuses[Math.min(calls.length - 1, statuses.length - 1)];
    const payload = status === 200 ? { ok: true, chargeId: `ch_${calls.length}`, amount: body.amount } : { ok: false };
    return new Response(JSON.stringify(payload), { status, headers: { "content-type": "application/json" } });
  });
  vi.stubGlobal("fetch", fetchMock);
  return calls;
}

describe("chargeWithRetry", () => {
  beforeEach(() => {
    vi.stubEnv("GATEWAY_URL", "http://gateway.test");
    vi.spyOn(Math, "random").mockReturnValue(0.999); // take the top of each jitter window
  });
  afterEach(() => {
    vi.unstubAllGlobals();
    vi.unstubAllEnvs();
    vi.restoreAllMocks();
  });

  it("sends the same idempotency key when it retries after a 503", async () => {
    const calls = fakeGateway(503, 200);

    await expect(chargeWithRetry(4200)).resolves.toMatchObject({ ok: true });

    expect(calls).toHaveLength(2);
    expect(calls[0].key).toBeTruthy();
    expect(calls[1].key).toBe(calls[0].key);
  });

  it("posts to $GATEWAY_URL/charge", async () => {
    const calls = fakeGateway(200);
    await chargeWithRetry(10);
    expect(calls[0].url).toBe("http://gateway.test/charge");
  });

  it("tries 4 times in an outage, backing off more each time, then throws", async () => {
    const calls = fakeGateway(503);

    await expect(chargeWithRetry(500)).rejects.toThrow(/gave up after 4 attempts/);

    expect(calls).toHaveLength(4);
    const gaps = calls.slice(1).map((c, i) => c.at - calls[i].at);
    expect(gaps[1]).toBeGreaterThan(gaps[0]);
    expect(gaps[2]).toBeGreaterThan(gaps[1]);
  });

  it("does not retry a 402", async () => {
    const calls = fakeGateway(402);
    await expect(chargeWithRetry(500)).rejects.toThrow(/refused/);
    expect(calls).toHaveLength(1);
  });
});
