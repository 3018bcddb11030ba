// Webhook consumer. Node 20 built-ins only: PORT=8787 WEBHOOK_SECRET=... node consumer.mjs
//
// Started from the assistant's draft. What changed and why is in NOTE.md; in short: the set
// of applied event ids now lives in the ledger file itself, written in the same atomic rename
// as the balance it changed, so "applied" and "recorded as applied" can never disagree, not
// even across a crash. Early refunds are parked in the same file.
import { createHmac, timingSafeEqual } from "node:crypto";
import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, writeSync } from "node:fs";
import { createServer } from "node:http";

const PORT = Number(process.env.PORT ?? 8787);
const SECRET = process.env.WEBHOOK_SECRET ?? "dev-secret";
const LEDGER = "state/ledger.json";

function loadLedger() {
  if (!existsSync(LEDGER)) return { applied: [], balances: {}, charges: {}, parked: {} };
  return JSON.parse(readFileSync(LEDGER, "utf8"));
}

// Write to a temporary file, fsync, then rename: the ledger is either the old one or the new one.
function saveLedger(ledger) {
  mkdirSync("state", { recursive: true });
  const tmp = `${LEDGER}.tmp`;
  const fd = openSync(tmp, "w");
  writeSync(fd, JSON.stringify(ledger, null, 2));
  fsyncSync(fd);
  closeSync(fd);
  renameSync(tmp, LEDGER);
}

function validSignature(raw, header) {
  const expected = Buffer.from(`sha256=${createHmac("sha256", SECRET).update(raw).digest("hex")}`);
  const given = Buffer.from(String(header ?? ""));
  return expected.length === given.length && timingSafeEqual(expected, given);
}

function apply(ledger, event) {
  const { charge, account, amount } = event.data;
  if (event.type === "charge.succeeded") {
    ledger.charges[charge] = { account, amount };
    ledger.balances[account] = (ledger.balances[account] ?? 0) + amount;
  } else if (event.type === "charge.refunded") {
    ledger.balances[account] = (ledger.balances[account] ?? 0) - amount;
  }
  ledger.applied.push(event.id);
}

function handle(raw, headers) {
  // Nothing is parsed, let alone recorded, before the signature checks out.
  if (!validSignature(raw, headers["x-signature"])) return [401, "bad signature"];
  const event = JSON.parse(raw);
  const ledger = loadLedger();
  if (ledger.applied.includes(event.id) || ledger.parked[event.id]) return [200, "already have it"];
  const { charge } = event.data;
  if (event.type === "charge.refunded" && !ledger.charges[charge]) {
    ledger.parked[event.id] = event; // durable: applied when its charge arrives, even after a restart
    saveLedger(ledger);
    return [202, "parked until its charge arrives"];
  }
  apply(ledger, event);
  if (event.type === "charge.succeeded") {
    for (const [id, waiting] of Object.entries(ledger.parked)) {
      if (waiting.data.charge === charge) {
        apply(ledger, waiting);
        delete ledger.parked[id];
      }
    }
  }
  saveLedger(ledger); // one rename: the effect and the record that it happened, together
  return [200, "ok"];
}

createServer((req, res) => {
  if (req.method !== "POST" || req.url !== "/webhooks") {
    res.writeHead(404).end();
    return;
  }
  const chunks = [];
  req.on("data", (chunk) => chunks.push(chunk));
  req.on("end", () => {
    let status, text;
    try {
      [status, text] = handle(Buffer.concat(chunks), req.headers);
    } catch (error) {
      [status, text] = [400, `bad request: ${error.message}`];
    }
    res.writeHead(status, { "content-type": "text/plain" }).end(text);
  });
}).listen(PORT, "127.0.0.1");
