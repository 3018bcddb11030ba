import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { http, HttpResponse } from "msw";
import { setupServer } from "msw/node";

import { chargeWithRetry } from "../checkout.mjs";

const CHARGE_URL = "http://localhost:8099/charge";

// What the mocked gateway saw, reset before every test.
let seen;

function record(request, body) {
  seen.push({
    bodyKey: body?.idempotencyKey,
    headerKey: request.headers.get("idempotency-key"),
    amount: body?.amount,
  });
}

// 503 for the first request, 200 for every later one (like the stub's "transient").
const transient = http.post(CHARGE_URL, async ({ request }) => {
  const body = await request.json();
  record(request, body);
  if (seen.length === 1) {
    return HttpResponse.json({ ok: false, error: "service unavailable" }, { status: 503 });
  }
  return HttpResponse.json({ ok: true, chargeId: `ch_${seen.length}`, amount: body.amount, idempotencyKey: body.idempotencyKey });
});

const server = setupServer(transient);

beforeAll(() => server.listen({ onUnhandledRequest: "error" }));
beforeEach(() => {
  seen = [];
});
afterEach(() => server.resetHandlers());
afterAll(() => server.close());

describe("chargeWithRetry", () => {
  it("retries a 503 and resolves with the gateway's answer", async () => {
    const answer = await chargeWithRetry(4200);

    expect(answer).toMatchObject({ ok: true, amount: 4200 });
    expect(seen).toHaveLength(2);
  });

  it("uses one idempotency key for all the attempts of a charge", async () => {
    await chargeWithRetry(4200);

    const keys = new Set(seen.map((r) => r.bodyKey));
    expect(seen).toHaveLength(2);
    expect(keys.size).toBe(1);
    expect([...keys][0]).toEqual(expect.any(String));
  });

  it("gives up after 4 attempts when the gateway stays down", async () => {
    server.use(
      http.post(CHARGE_URL, async ({ request }) => {
        record(request, await request.json());
        return HttpResponse.json({ ok: false, error: "service unavailable" }, { status: 503 });
      }),
    );

    await expect(chargeWithRetry(800)).rejects.toThrow(/after 4 attempts/);
    expect(seen).toHaveLength(4);
    expect(new Set(seen.map((r) => r.bodyKey)).size).toBe(1);
  });

  it("does not retry a 400", async () => {
    server.use(
      http.post(CHARGE_URL, async ({ request }) => {
        record(request, await request.json());
        return HttpResponse.json({ ok: false, error: "amount must not be negative" }, { status: 400 });
      }),
    );

    await expect(chargeWithRetry(-1)).rejects.toThrow(/400/);
    expect(seen).toHaveLength(1);
  });
});
