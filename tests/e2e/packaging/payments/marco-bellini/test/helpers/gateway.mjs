import { createServer } from "node:http";

// Minimal gateway double. respond(n) decides the status of the n-th request (0-based).
export function createGateway() {
  const requests = [];
  let respond = () => 200;
  const server = createServer((req, res) => {
    let raw = "";
    req.setEncoding("utf8");
    req.on("data", (d) => (raw += d));
    req.on("end", () => {
      const { amount, idempotencyKey } = JSON.parse(raw);
      const n = requests.push({ amount, key: idempotencyKey, t: Date.now() }) - 1;
      const status = respond(n);
      res.statusCode = status;
      res.setHeader("content-type", "application/json");
      res.end(JSON.stringify(status === 200 ? { ok: true, chargeId: `ch_${n + 1}`, amount } : { ok: false, error: "nope" }));
    });
  });
  return {
    requests,
    set respond(fn) {
      respond = fn;
    },
    start: () => new Promise((ok) => server.listen(0, "127.0.0.1", () => ok(`http://127.0.0.1:${server.address().port}`))),
    stop: () => new Promise((ok) => server.close(ok)),
  };
}
