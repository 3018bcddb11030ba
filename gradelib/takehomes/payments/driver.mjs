// The kit's driver for a `payments` submission. Node 20 built-ins only.
//
//   node driver.mjs MODULE_PATH AMOUNTS KEY_FILE SEED   (working directory: the submission copy)
//
// Reads this run's secret key from KEY_FILE and deletes the file, then imports the
// candidate's checkout.mjs by file URL, calls chargeWithRetry(amount) once for each of the
// comma-separated AMOUNTS, one after the other (separate orders), and prints ONE line on stdout:
//
//   GRADELIB_RESULT <key> {"outcome": "resolved"|"rejected"|"no_export"|"import_error",
//                          "value": ..., "error": "message", "unhandled": [...],
//                          "calls": [{"amount": n, "outcome": ..., "value": ..., "error": ...}]}
//
// With several amounts, "outcome" is "rejected" when any call rejected, "value" the last
// call's value and "error" the first call's error.
//
// The candidate's code shares this process and stdout, so the key (gone before that code
// loads) is what tells the kit's line from a forged one.
//
// Math.random is replaced, before the candidate's module loads, by a generator seeded with
// SEED (the kit derives it from the scenario and the run, never from the clock): every
// grading of a submission draws the same numbers, so jittered backoff waits the same on
// every grading. It draws from [0.5, 1): jitter (full, equal or decorrelated) can shorten a
// wait to half its envelope at most, never to almost nothing by chance, so an exponential
// envelope's growth stays visible in the gaps between attempts. Ids made from Math.random
// still differ from call to call and from run to run (each run has its own seed).
//
// Exit status: 0 once chargeWithRetry has settled (resolved or rejected), 3 when the
// module has no exported function chargeWithRetry, 4 when it cannot be imported.
// A promise that never settles leaves node to exit 13 on its own (nothing printed).
import { readFileSync, unlinkSync } from "node:fs";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";

const MARKER = "GRADELIB_RESULT";
const MAX_VALUE_CHARS = 2000;
const MAX_ERROR_CHARS = 500;
const MAX_UNHANDLED = 5;
const EXIT_NO_EXPORT = 3;
const EXIT_IMPORT_ERROR = 4;

// Taken before the candidate's module loads, so patching these globals cannot fake a result.
const stringify = JSON.stringify;
const parse = JSON.parse;
const write = process.stdout.write.bind(process.stdout);
const exit = process.exit.bind(process);

const unhandled = [];
let printed = false;

// mulberry32: small, fast and good enough to stand in for Math.random in a payment client.
function seeded(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function clip(text, max) {
  return text.length > max ? `${text.slice(0, max)}... [${text.length - max} more characters]` : text;
}

// The message of anything thrown, without trusting its getters or toString.
function describe(error) {
  try {
    if (error instanceof Error) return clip(`${error.name}: ${error.message}`, MAX_ERROR_CHARS);
    return clip(String(error), MAX_ERROR_CHARS);
  } catch {
    return "(an error that cannot be described)";
  }
}

// A JSON-ready copy of the value, or its text cut short when it is long or not JSON.
function bounded(value) {
  let text;
  try {
    text = stringify(value);
  } catch (error) {
    return `(not JSON: ${describe(error)})`;
  }
  if (text === undefined) return null;
  if (text.length <= MAX_VALUE_CHARS) return parse(text);
  return clip(text, MAX_VALUE_CHARS);
}

function finish(outcome, fields, code) {
  if (printed) return;
  printed = true;
  const result = { outcome, value: null, error: null, ...fields, unhandled };
  write(`\n${MARKER} ${key} ${stringify(result)}\n`, () => exit(code));
}

// A stray rejection or throw in the candidate's timers must not kill the driver before
// chargeWithRetry settles; they are reported beside the result instead.
process.on("unhandledRejection", (reason) => {
  if (unhandled.length < MAX_UNHANDLED) unhandled.push(`unhandled rejection: ${describe(reason)}`);
});
process.on("uncaughtException", (error) => {
  if (unhandled.length < MAX_UNHANDLED) unhandled.push(`uncaught exception: ${describe(error)}`);
});

const [modulePath, amountsText, keyFile, seedText] = process.argv.slice(2);
const amounts = amountsText.split(",").map(Number);
const draw = seeded(Number(seedText) || 0);
Math.random = () => 0.5 + draw() / 2;
let key = "";
try {
  key = readFileSync(keyFile, "utf8").trim();
} finally {
  try {
    unlinkSync(keyFile);
  } catch {
    // already gone: the kit then finds no result line it can trust
  }
}

let module;
try {
  module = await import(pathToFileURL(resolve(modulePath)).href);
} catch (error) {
  finish("import_error", { error: describe(error) }, EXIT_IMPORT_ERROR);
}

if (!printed) {
  let charge;
  try {
    charge = module.chargeWithRetry;
  } catch (error) {
    charge = undefined;
  }
  if (typeof charge !== "function") {
    const exported = Object.keys(module).slice(0, 20).join(", ") || "nothing";
    const error = `checkout.mjs does not export a function chargeWithRetry (it exports: ${exported})`;
    finish("no_export", { error: clip(error, MAX_ERROR_CHARS) }, EXIT_NO_EXPORT);
  } else {
    const calls = [];
    for (const amount of amounts) {
      try {
        const value = await charge(amount);
        calls.push({ amount, outcome: "resolved", value: bounded(value), error: null });
      } catch (error) {
        calls.push({ amount, outcome: "rejected", value: null, error: describe(error) });
      }
    }
    const rejected = calls.find((call) => call.outcome === "rejected");
    const last = calls[calls.length - 1];
    finish(rejected ? "rejected" : "resolved", { value: last.value, error: rejected ? rejected.error : null, calls }, 0);
  }
}
