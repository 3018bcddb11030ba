// A payment gateway stub for local testing. Node built-ins only.
//
//   node gateway/server.mjs [--scenario transient|outage] [--port 8099] [--host 127.0.0.1]
//
// POST /charge   {"amount": n, "idempotencyKey": "..."}  (or an Idempotency-Key header)
// GET  /counts   {"requests": .., "distinct_keys": .., "charges": ..}, also printed on stdout
// GET  /requests every charge request seen so far
// Each request is logged on stderr; Ctrl-C prints the counts on stdout and stops.
import { createServer } from "node:http";

const SCENARIOS = {
  transient: [503, 200], // the first charge request fails, later ones succeed
  outage: [503], // every charge request fails
};
const MAX_BODY_BYTES = 64 * 1024;
const MAX_KEY_CHARS = 255;
const MAX_LOGGED = 10_000;

function option(name, fallback) {
  const at = process.argv.indexOf(`--${name}`);
  return at > 0 && at + 1 < process.argv.length ? process.argv[at + 1] : fallback;
}

const scenario = option("scenario", "transient");
const port = Number(option("port", "8099"));
const host = option("host", "127.0.0.1");
if (!(scenario in SCENARIOS)) {
  console.error(`gateway: unknown scenario ${scenario}; known: ${Object.keys(SCENARIOS).join(", ")}`);
  process.exit(2);
}
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  console.error(`gateway: --port must be a number from 0 to 65535, not ${option("port")}`);
  process.exit(2);
}
const steps = SCENARIOS[scenario];

const log = [];
const attempts = new Map(); // key -> requests seen with it
const charged = new Map(); // key -> {status, answer, amount} of the charge it made
let total = 0;
let stepsUsed = 0;
let charges = 0;

const counts = () => ({ requests: total, distinct_keys: attempts.size, charges });

function validKey(value) {
  return typeof value === "string" && value.length > 0 && value.length <= MAX_KEY_CHARS;
}

// Decide the answer to one charge request: [status, body].
function charge(raw, headers) {
  let body = null;
  try {
    body = JSON.parse(raw);
  } catch {}
  const isObject = body !== null && typeof body === "object" && !Array.isArray(body);
  let key = null;
  let problem = null;
  const bodyKey = isObject ? body.idempotencyKey : undefined;
  if (bodyKey !== undefined && bodyKey !== null) {
    if (validKey(bodyKey)) key = bodyKey;
    else problem = `idempotencyKey must be a string of 1 to ${MAX_KEY_CHARS} characters`;
  } else if (headers["idempotency-key"]) {
    if (validKey(headers["idempotency-key"])) key = headers["idempotency-key"];
    else problem = `Idempotency-Key must be 1 to ${MAX_KEY_CHARS} characters`;
  }
  const amount = isObject ? body.amount : undefined;
  if (!isObject) problem = "body must be a JSON object";
  else if (amount === undefined) problem = "amount is required";
  else if (typeof amount !== "number" || !Number.isFinite(amount)) problem = "amount must be a number";
  else if (amount < 0) problem = "amount must not be negative";

  total += 1;
  let attempt = 1;
  if (key !== null) {
    attempt = (attempts.get(key) ?? 0) + 1;
    attempts.set(key, attempt);
  }
  let status;
  let answer;
  let outcome = "";
  if (problem !== null) {
    [status, answer] = [400, { ok: false, error: problem }];
  } else if (key !== null && charged.has(key) && charged.get(key).amount !== amount) {
    // Like a real gateway: a key names one payment, and a payment has one amount.
    const error = "this idempotency key was already used with a different amount";
    [status, answer, outcome] = [400, { ok: false, error, code: "idempotency_error" }, " (key reused for another amount)"];
  } else if (key !== null && charged.has(key)) {
    [status, answer, outcome] = [charged.get(key).status, charged.get(key).answer, " (same payment as before: not charged again)"];
  } else {
    const step = steps[Math.min(stepsUsed, steps.length - 1)];
    stepsUsed += 1;
    if (step >= 200 && step < 300) {
      charges += 1;
      answer = { ok: true, chargeId: `ch_${charges}`, amount, idempotencyKey: key };
      if (key !== null) charged.set(key, { status: step, answer, amount });
      [status, outcome] = [step, " (charged)"];
    } else {
      // 503: unavailable before anything was processed, so nothing is stored for the key
      [status, answer] = [step, { ok: false, error: "service unavailable" }];
    }
  }
  const entry = { index: total - 1, time: new Date().toISOString(), key, amount, status, attempt };
  if (log.length < MAX_LOGGED) log.push(entry);
  console.error(
    `gateway: #${entry.index} POST /charge key=${key === null ? "-" : JSON.stringify(key)}` +
      ` attempt=${attempt} amount=${JSON.stringify(amount) ?? "-"} -> ${status}${outcome}`,
  );
  return [status, answer];
}

function send(res, status, payload) {
  const text = JSON.stringify(payload);
  res.writeHead(status, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(text),
    connection: "close",
  });
  res.end(text);
}

const server = createServer((req, res) => {
  const path = new URL(req.url, "http://gateway").pathname;
  const chunks = [];
  let size = 0;
  req.on("data", (chunk) => {
    size += chunk.length;
    if (size <= MAX_BODY_BYTES) chunks.push(chunk);
  });
  req.on("error", () => {});
  req.on("end", () => {
    if (req.method === "POST" && path === "/charge") {
      const raw = size > MAX_BODY_BYTES ? "" : Buffer.concat(chunks).toString("utf8");
      const [status, answer] = charge(raw, req.headers);
      send(res, status, answer);
    } else if (req.method === "GET" && path === "/counts") {
      console.log(JSON.stringify(counts()));
      send(res, 200, counts());
    } else if (req.method === "GET" && path === "/requests") {
      send(res, 200, log);
    } else {
      send(res, 404, { ok: false, error: "not found" });
    }
  });
});
server.on("clientError", (_err, socket) => socket.destroy());

function stop() {
  console.log(JSON.stringify(counts()));
  process.exit(0);
}
process.on("SIGINT", stop);
process.on("SIGTERM", stop);

server.listen(port, host, () => {
  const { port: actual } = server.address();
  console.error(`gateway: scenario ${scenario} on http://${host}:${actual}; Ctrl-C prints the counts and stops`);
});
