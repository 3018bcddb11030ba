// A scriptable stand-in for the gateway: answers[i] is the status for request i (the last repeats).
export type Seen = { key: string | null; amount: number; at: number };

export function fakeGateway() {
  let script: (number | "hang")[] = [200];
  const seen: Seen[] = [];
  let onRequest: (() => void) | undefined;
  const server = Bun.serve({
    port: 0,
    async fetch(req) {
      const body = (await req.json()) as { amount: number; idempotencyKey?: string };
      seen.push({ key: body.idempotencyKey ?? req.headers.get("idempotency-key"), amount: body.amount, at: performance.now() });
      onRequest?.();
      const step = script[Math.min(seen.length - 1, script.length - 1)];
      if (step === "hang") return new Promise<Response>(() => {});
      return Response.json(step === 200 ? { ok: true, chargeId: `ch_${seen.length}` } : { ok: false }, { status: step });
    },
  });
  return {
    url: `http://127.0.0.1:${server.port}`,
    seen,
    script(...steps: (number | "hang")[]) {
      script = steps;
      seen.length = 0;
      onRequest = undefined;
    },
    onRequest(fn: () => void) {
      onRequest = fn;
    },
    stop: () => server.stop(true),
  };
}
