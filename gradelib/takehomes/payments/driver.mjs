// The kit's driver for a `payments` submission. Node 20 built-ins only.
//
//   node driver.mjs MODULE_PATH AMOUNT KEY_FILE      (working directory: the submission copy)
//
// Reads this run's secret key from KEY_FILE and deletes the file, then imports the
// candidate's checkout.mjs by file URL, calls chargeWithRetry(AMOUNT) once and prints
// ONE line on stdout:
//
//   GRADELIB_RESULT <key> {"outcome": "resolved"|"rejected"|"no_export"|"import_error",
//                          "value": ..., "error": "message", "unhandled": [...]}
//
// The candidate's code shares this process and stdout, so the key (gone before that code
// loads) is what tells the kit's line from a forged one.
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

const [modulePath, amountText, keyFile] = process.argv.slice(2);
const amount = Number(amountText);
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
    try {
      const value = await charge(amount);
      finish("resolved", { value: bounded(value) }, 0);
    } catch (error) {
      finish("rejected", { error: describe(error) }, 0);
    }
  }
}
