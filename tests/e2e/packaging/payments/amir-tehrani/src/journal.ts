// An append-only journal of charges, so an idempotency key outlives the process that made it.
// Each line is JSON: {"op":"start","amount":..,"key":..} before the first request,
// {"op":"end","key":..,"outcome":..} once the gateway gave a final answer.
import { closeSync, existsSync, fsyncSync, openSync, readFileSync, writeSync } from "node:fs";
import { randomUUID } from "node:crypto";

export type Entry =
  | { op: "start"; amount: number; key: string }
  | { op: "end"; key: string; outcome: "charged" | "refused" };

export class Journal {
  constructor(private readonly path: string) {}

  private entries(): Entry[] {
    if (!existsSync(this.path)) return [];
    return readFileSync(this.path, "utf8")
      .split("\n")
      .filter((line) => line.trim() !== "")
      .map((line) => JSON.parse(line) as Entry);
  }

  private append(entry: Entry): void {
    const fd = openSync(this.path, "a");
    try {
      writeSync(fd, JSON.stringify(entry) + "\n");
      fsyncSync(fd); // on disk before we go on to send anything
    } finally {
      closeSync(fd);
    }
  }

  /** The key of an unfinished charge of this amount, or a new key recorded as started. */
  begin(amount: number): string {
    const ended = new Set<string>();
    let open: string | undefined;
    for (const e of this.entries()) {
      if (e.op === "end") ended.add(e.key);
    }
    for (const e of this.entries()) {
      if (e.op === "start" && e.amount === amount && !ended.has(e.key)) open = e.key;
    }
    if (open) return open;
    const key = randomUUID();
    this.append({ op: "start", amount, key });
    return key;
  }

  finish(key: string, outcome: "charged" | "refused"): void {
    this.append({ op: "end", key, outcome });
  }
}
