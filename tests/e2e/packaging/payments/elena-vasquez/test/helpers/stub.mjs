import { createServer } from "node:http";

// Answers request i with codes[i] (the last code repeats) and logs each request.
export async function stubGateway() {
  const stub = { codes: [200], requests: [] };
  stub.server = createServer((req, res) => {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => {
      const parsed = JSON.parse(body);
      stub.requests.push({ key: parsed.idempotencyKey, amount: parsed.amount });
      const code = stub.codes[Math.min(stub.requests.length - 1, stub.codes.length - 1)];
      res.writeHead(code, { "content-type": "application/json" });
      res.end(JSON.stringify({ ok: code === 200 }));
    });
  });
  await new Promise((r) => stub.server.listen(0, "127.0.0.1", r));
  stub.url = `http://127.0.0.1:${stub.server.address().port}`;
  return stub;
}
