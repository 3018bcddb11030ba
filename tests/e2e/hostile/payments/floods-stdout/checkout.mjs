// Gigabytes on stdout at import time, written synchronously (retrying a full pipe) so none is dropped.
import { writeSync } from "node:fs";

function put(text) {
  const bytes = Buffer.from(text);
  for (let done = 0; done < bytes.length; ) {
    try {
      done += writeSync(1, bytes, done);
    } catch (error) {
      if (error.code !== "EAGAIN") throw error;
    }
  }
}

const block = "A".repeat(1 << 20);
for (let i = 0; i < 8192; i++) put(block);

export async function chargeWithRetry(amount) {
  return { ok: true, amount };
}
