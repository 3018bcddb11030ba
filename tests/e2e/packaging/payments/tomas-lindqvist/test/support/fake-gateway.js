import { createServer } from "node:http";

// Minimal stand-in for the payment gateway. `responses` is consumed one status
// per new request; once a key has been charged, its charge is replayed.
export async function startFakeGateway() {
  const state = { responses: [], requests: [], charges: new Map() };

  const server = createServer(async (req, res) => {
    let raw = "";
    for await (const chunk of req) raw += chunk;
    const { amount, idempotencyKey } = JSON.parse(raw);
    state.requests.push({ amount, idempotencyKey, at: performance.now() });

    let status = 200;
    let body;
    if (state.charges.has(idempotencyKey)) {
      body = state.charges.get(idempotencyKey);
    } else {
      status = state.responses.shift() ?? 200;
      if (status === 200) {
        body = { ok: true, chargeId: `ch_${state.charges.size + 1}`, amount };
        state.charges.set(idempotencyKey, body);
      } else {
        body = { ok: false, error: "unavailable" };
      }
    }
    res.writeHead(status, { "content-type": "application/json" });
    res.end(JSON.stringify(body));
  });

  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    state,
    reset() {
      state.responses = [];
      state.requests = [];
      state.charges.clear();
    },
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}
