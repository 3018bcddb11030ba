// Stand-in gateway for the tests (the leading underscore keeps AVA from running it).
// `script` is a list of status codes, one per incoming request; the last one repeats.
import http from "node:http";

export function fakeGateway() {
  const state = { script: [200], log: [] };
  const server = http.createServer(async (req, res) => {
    const chunks = [];
    for await (const chunk of req) chunks.push(chunk);
    const payload = JSON.parse(Buffer.concat(chunks).toString() || "{}");
    state.log.push({ time: performance.now(), amount: payload.amount, bodyKey: payload.idempotencyKey, headerKey: req.headers["idempotency-key"] });
    const status = state.script[Math.min(state.log.length - 1, state.script.length - 1)];
    res.writeHead(status, { "content-type": "application/json" });
    res.end(JSON.stringify(status === 200 ? { ok: true, chargeId: `ch_${state.log.length}`, amount: payload.amount } : { ok: false, error: "scripted failure" }));
  });
  return {
    state,
    listen: () => new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(`http://127.0.0.1:${server.address().port}`))),
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}
