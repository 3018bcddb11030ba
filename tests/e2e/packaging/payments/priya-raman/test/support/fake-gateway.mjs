// A fake payment gateway for the tests. It answers the Nth charge request with
// plan[N] (the last entry repeats) and keeps every request it saw.
// An entry is a status code, or "hang" for a request that never gets an answer.
import { createServer } from "node:http";

export class FakeGateway {
  constructor() {
    this.plan = [200];
    this.seen = [];
    this.listeners = [];
    this.server = createServer((req, res) => this.#handle(req, res));
  }

  async start() {
    await new Promise((ready) => this.server.listen(0, "127.0.0.1", ready));
    this.url = `http://127.0.0.1:${this.server.address().port}`;
    return this;
  }

  answer(...plan) {
    this.plan = plan;
  }

  reset() {
    this.plan = [200];
    this.seen = [];
    this.listeners = [];
  }

  onRequest(listener) {
    this.listeners.push(listener);
  }

  keys() {
    return [...new Set(this.seen.map((r) => r.key))];
  }

  waitForRequests(count, ms = 5000) {
    const deadline = Date.now() + ms;
    return new Promise((resolve, reject) => {
      const poll = () => {
        if (this.seen.length >= count) return resolve();
        if (Date.now() > deadline) return reject(new Error(`only ${this.seen.length} of ${count} requests arrived`));
        setTimeout(poll, 10);
      };
      poll();
    });
  }

  stop() {
    this.server.closeAllConnections();
    return new Promise((done) => this.server.close(done));
  }

  #handle(req, res) {
    let raw = "";
    req.on("data", (chunk) => (raw += chunk));
    req.on("end", () => {
      const body = raw ? JSON.parse(raw) : {};
      const request = { at: Date.now(), amount: body.amount, key: body.idempotencyKey ?? req.headers["idempotency-key"] };
      this.seen.push(request);
      for (const listener of this.listeners) listener(request);
      const step = this.plan[Math.min(this.seen.length, this.plan.length) - 1];
      if (step === "hang") return;
      res.writeHead(step, { "content-type": "application/json" });
      res.end(JSON.stringify(step < 300 ? { ok: true, chargeId: `ch_${this.seen.length}`, amount: body.amount } : { ok: false, error: `status ${step}` }));
    });
  }
}
