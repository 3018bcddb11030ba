// A scripted fake gateway for the tests: answers the Nth request with the Nth
// step of the script (the last step repeats) and remembers every request.
import { createServer } from "node:http";

export async function startGateway() {
  let steps = [200];
  let onRequest = () => {};
  const requests = [];
  let charges = 0;

  const server = createServer((req, res) => {
    let raw = "";
    req.on("data", (chunk) => (raw += chunk));
    req.on("end", () => {
      const body = JSON.parse(raw || "{}");
      const request = {
        at: performance.now(),
        amount: body.amount,
        key: body.idempotencyKey ?? req.headers["idempotency-key"],
      };
      requests.push(request);
      onRequest(request);
      const step = steps[Math.min(requests.length - 1, steps.length - 1)];
      if (step === "hang") return; // never answer
      res.writeHead(step, { "content-type": "application/json" });
      if (step === 200) {
        charges += 1;
        res.end(JSON.stringify({ ok: true, chargeId: `ch_${charges}`, amount: body.amount, idempotencyKey: request.key }));
      } else {
        res.end(JSON.stringify({ ok: false, error: `status ${step}` }));
      }
    });
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));

  return {
    url: `http://127.0.0.1:${server.address().port}`,
    requests,
    keys: () => new Set(requests.map((r) => r.key)),
    script: (...next) => (steps = next),
    onRequest: (fn) => (onRequest = fn),
    reset() {
      requests.length = 0;
      steps = [200];
      onRequest = () => {};
    },
    close() {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(resolve));
    },
  };
}
