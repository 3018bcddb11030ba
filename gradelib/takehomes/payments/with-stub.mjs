// Runs a command with the handout's gateway stub listening where the handout says it does, as a
// reviewer would after reading the handout: `node gateway/server.mjs` in one terminal, the tests in
// another. Node built-ins only; the kit runs it in the sandbox, in place of the suite's command.
//
//   node with-stub.mjs STUB PORT -- COMMAND [ARG...]
//
// The stub's own log is dropped (it would mix with the runner's output); this process exits as the
// command did, and the stub is stopped either way.
import { spawn } from "node:child_process";
import { get } from "node:http";

const [stubPath, portText, separator, ...command] = process.argv.slice(2);
if (!stubPath || separator !== "--" || command.length === 0) {
  console.error("usage: node with-stub.mjs STUB PORT -- COMMAND [ARG...]");
  process.exit(2);
}
const port = Number(portText);
const READY_MS = 15_000;

const stub = spawn(process.execPath, [stubPath, "--port", String(port), "--host", "127.0.0.1"], {
  stdio: ["ignore", "ignore", "ignore"],
});
let stubExit = null;
stub.on("exit", (code, signal) => {
  stubExit = signal ?? code;
});

function answers() {
  return new Promise((resolve) => {
    const request = get({ host: "127.0.0.1", port, path: "/counts", timeout: 1000 }, (response) => {
      response.resume();
      resolve(response.statusCode === 200);
    });
    request.on("error", () => resolve(false));
    request.on("timeout", () => request.destroy());
  });
}

const deadline = Date.now() + READY_MS;
while (!(await answers())) {
  if (stubExit !== null || Date.now() > deadline) {
    console.error(`with-stub: the handout's gateway stub did not listen on 127.0.0.1:${port} (${stubExit ?? "timeout"})`);
    stub.kill("SIGKILL");
    process.exit(70);
  }
  await new Promise((resolve) => setTimeout(resolve, 50));
}

const child = spawn(command[0], command.slice(1), { stdio: "inherit" });
for (const name of ["SIGINT", "SIGTERM"]) {
  process.on(name, () => child.kill(name));
}
child.on("error", (error) => {
  console.error(`with-stub: ${command[0]}: ${error.message}`);
  stub.kill("SIGKILL");
  process.exit(127);
});
child.on("exit", (code, signal) => {
  stub.kill("SIGKILL");
  process.exit(code ?? 128 + ({ SIGKILL: 9, SIGTERM: 15, SIGINT: 2 }[signal] ?? 1));
});
