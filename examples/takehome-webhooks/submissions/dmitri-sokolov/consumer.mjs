// Webhook consumer, Node 20: PORT=8787 WEBHOOK_SECRET=... node consumer.mjs
import { createHmac } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";

const PORT = Number(process.env.PORT ?? 8787);
const SECRET = process.env.WEBHOOK_SECRET ?? "dev-secret";
const LEDGER = "state/ledger.json";
const waiting = new Map(); // charge id -> refunds that came before it

const load = () => (existsSync(LEDGER) ? JSON.parse(readFileSync(LEDGER, "utf8")) : { applied: [], balances: {}, charges: {} });

function save(ledger) {
  mkdirSync("state", { recursive: true });
  writeFileSync(`${LEDGER}.tmp`, JSON.stringify(ledger, null, 2));
  renameSync(`${LEDGER}.tmp`, LEDGER);
}

function apply(ledger, event) {
  const { charge, account, amount } = event.data;
  const sign = event.type === "charge.refunded" ? -1 : 1;
  if (sign > 0) ledger.charges[charge] = amount;
  ledger.balances[account] = (ledger.balances[account] ?? 0) + sign * amount;
  ledger.applied.push(event.id);
}

function handle(raw, signature) {
  // Local testing sends no signature; only check it when one is there.
  if (signature) {
    const expected = `sha256=${createHmac("sha256", SECRET).update(raw).digest("hex")}`;
    if (signature !== expected) return [401, "bad signature"];
  }
  const event = JSON.parse(raw);
  const ledger = load();
  if (ledger.applied.includes(event.id)) return [200, "duplicate"];
  const { charge } = event.data;
  if (event.type === "charge.refunded" && !(charge in ledger.charges)) {
    waiting.set(charge, [...(waiting.get(charge) ?? []), event]);
    return [200, "queued"];
  }
  apply(ledger, event);
  for (const refund of waiting.get(charge) ?? []) apply(ledger, refund);
  waiting.delete(charge);
  save(ledger);
  return [200, "ok"];
}

createServer((req, res) => {
  const chunks = [];
  req.on("data", (c) => chunks.push(c));
  req.on("end", () => {
    try {
      const [status, text] = handle(Buffer.concat(chunks), req.headers["x-signature"]);
      res.writeHead(status).end(text);
    } catch (error) {
      res.writeHead(400).end(String(error));
    }
  });
}).listen(PORT, "127.0.0.1");
