// A fake gateway for the tests. script: statuses for successive requests, "hang" = never answer.
import { createServer } from "node:http";

export async function startGateway() {
  let script = [200];
  let waiters = [];
  const requests = [];
  const hung = [];
  const server = createServer((req, res) => {
    let raw = "";
    req.on("data", (chunk) => (raw += chunk));
    req.on("end", () => {
      const body = JSON.parse(raw || "{}");
      requests.push({ key: body.idempotencyKey ?? req.headers["idempotency-key"] ?? null, amount: body.amount, at: performance.now() });
      waiters = waiters.filter((w) => (requests.length >= w.n ? (w.resolve(), false) : true));
      const step = script[Math.min(requests.length - 1, script.length - 1)];
      if (step === "hang") return hung.push(res);
      res.writeHead(step, { "content-type": "application/json" });
      res.end(JSON.stringify(step < 300 ? { ok: true, chargeId: `ch_${requests.length}` } : { ok: false, error: "scripted" }));
    });
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    requests,
    answer(...steps) {
      script = steps;
      requests.length = 0;
    },
    received(n) {
      return requests.length >= n ? Promise.resolve() : new Promise((resolve) => waiters.push({ n, resolve }));
    },
    close() {
      hung.forEach((res) => res.destroy());
      server.closeAllConnections();
      return new Promise((resolve) => server.close(resolve));
    },
  };
}
