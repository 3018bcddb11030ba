import http from "node:http";

// Starts a gateway double. `respond` decides each answer: a status code, or "hang".
export function fakeGateway() {
  const log = [];
  let plan = () => 200;
  const open = new Set();
  const server = http.createServer((req, res) => {
    let body = "";
    req.on("data", (d) => (body += d));
    req.on("end", () => {
      const json = JSON.parse(body);
      log.push({ key: json.idempotencyKey ?? req.headers["idempotency-key"], amount: json.amount, t: performance.now() });
      const status = plan(log.length - 1);
      if (status === "hang") return open.add(res);
      res.writeHead(status, { "Content-Type": "application/json" });
      res.end(JSON.stringify(status === 200 ? { ok: true, chargeId: "ch_" + log.length } : { ok: false, error: "scripted " + status }));
    });
  });
  return {
    log,
    plan(statuses) {
      log.length = 0;
      plan = (i) => statuses[Math.min(i, statuses.length - 1)];
    },
    async listen() {
      await new Promise((r) => server.listen(0, "127.0.0.1", r));
      return `http://127.0.0.1:${server.address().port}`;
    },
    async waitFor(n) {
      while (log.length < n) await new Promise((r) => setTimeout(r, 5));
    },
    close() {
      for (const res of open) res.destroy();
      server.closeAllConnections();
      server.close();
    },
  };
}
