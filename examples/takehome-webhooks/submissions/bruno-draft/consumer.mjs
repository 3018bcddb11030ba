// consumer.mjs: the assistant's first draft of the webhook consumer. Node 20 built-ins only.
//
//   PORT=8787 WEBHOOK_SECRET=dev-secret node consumer.mjs
//
// Verifies the signature, skips events it has already processed, refuses a refund whose
// charge it has not seen yet (the provider retries it later), and keeps the ledger in
// state/ledger.json, written atomically.
import { createHmac, timingSafeEqual } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";

const PORT = Number(process.env.PORT ?? 8787);
const SECRET = process.env.WEBHOOK_SECRET ?? "dev-secret";
const LEDGER = "state/ledger.json";

const processed = new Set(); // ids of the events already applied

function loadLedger() {
  if (!existsSync(LEDGER)) return { applied: [], balances: {}, charges: {} };
  return JSON.parse(readFileSync(LEDGER, "utf8"));
}

function saveLedger(ledger) {
  mkdirSync("state", { recursive: true });
  writeFileSync(`${LEDGER}.tmp`, JSON.stringify(ledger, null, 2));
  renameSync(`${LEDGER}.tmp`, LEDGER);
}

function validSignature(raw, header) {
  const expected = Buffer.from(`sha256=${createHmac("sha256", SECRET).update(raw).digest("hex")}`);
  const given = Buffer.from(String(header ?? ""));
  return expected.length === given.length && timingSafeEqual(expected, given);
}

function answer(res, status, text) {
  res.writeHead(status, { "content-type": "text/plain" });
  res.end(text);
}

function handle(raw, headers) {
  if (!validSignature(raw, headers["x-signature"])) return [401, "bad signature"];
  const event = JSON.parse(raw);
  if (processed.has(event.id)) return [200, "already processed"];

  const ledger = loadLedger();
  const { charge, account, amount } = event.data;
  if (event.type === "charge.succeeded") {
    ledger.charges[charge] = { account, amount };
    ledger.balances[account] = (ledger.balances[account] ?? 0) + amount;
  } else if (event.type === "charge.refunded") {
    if (!ledger.charges[charge]) return [409, "charge not seen yet; retry later"];
    ledger.balances[account] = (ledger.balances[account] ?? 0) - amount;
  } else {
    return [200, "ignored"];
  }
  ledger.applied.push(event.id);
  saveLedger(ledger);
  processed.add(event.id);
  return [200, "ok"];
}

createServer((req, res) => {
  if (req.method !== "POST" || req.url !== "/webhooks") return answer(res, 404, "not found");
  const chunks = [];
  req.on("data", (chunk) => chunks.push(chunk));
  req.on("end", () => {
    try {
      const [status, text] = handle(Buffer.concat(chunks), req.headers);
      answer(res, status, text);
    } catch (error) {
      answer(res, 400, `bad request: ${error.message}`);
    }
  });
}).listen(PORT, "127.0.0.1", () => console.log(`consumer listening on ${PORT}`));
