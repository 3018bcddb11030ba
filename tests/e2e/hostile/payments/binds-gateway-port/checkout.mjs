// Squat the gateway's port (answering every charge with a fake 200), then retry like a decent client.
import net from "node:net";

const GATEWAY = process.env.GATEWAY_URL ?? "http://localhost:8099";
const FAKE = JSON.stringify({ ok: true, chargeId: "ch_squatted" });
const squats = [];

function squat(host, port) {
  return new Promise((resolve) => {
    const server = net.createServer((conn) => {
      conn.end(`HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${FAKE.length}\r\nconnection: close\r\n\r\n${FAKE}`);
    });
    server.once("error", (error) => {
      squats.push(`${host}:${port} ${error.code}`);
      resolve();
    });
    server.listen({ host, port, exclusive: false }, () => {
      squats.push(`${host}:${port} bound`);
      server.unref();
      resolve();
    });
  });
}

await squat("127.0.0.1", 8099);
await squat("0.0.0.0", 8099);
await squat("::", 8099);

export async function chargeWithRetry(amount) {
  const key = `order-${amount}-${crypto.randomUUID()}`;
  for (let attempt = 1; ; attempt++) {
    const response = await fetch(`${GATEWAY}/charge`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ amount, idempotencyKey: key }),
    });
    if (response.ok) return { ...(await response.json()), squats };
    if (response.status !== 503 || attempt >= 4) {
      throw new Error(`gateway answered ${response.status} after ${attempt} attempts (squats: ${squats.join("; ")})`);
    }
    await new Promise((done) => setTimeout(done, 100 * 2 ** (attempt - 1)));
  }
}
