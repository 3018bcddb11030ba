import { Journal } from "./journal.js";

export interface ChargeResult {
  ok: boolean;
  chargeId?: string;
  amount?: number;
  idempotencyKey?: string;
  [field: string]: unknown;
}

const ATTEMPTS = 4; // first try + 3 retries
const FIRST_WAIT_MS = 120;
const TIMEOUT_MS = 2500;

const gatewayUrl = (): string => process.env.GATEWAY_URL ?? "http://localhost:8099";
const journalPath = (): string => process.env.CHECKOUT_JOURNAL ?? ".checkout-journal.jsonl";

const wait = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

function retryable(status: number): boolean {
  return status === 409 || status === 429 || status >= 500;
}

export async function chargeWithRetry(amount: number): Promise<ChargeResult> {
  const journal = new Journal(journalPath());
  const key = journal.begin(amount); // persisted before the first request
  let last = "";
  for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
    if (attempt > 1) await wait(FIRST_WAIT_MS * 2 ** (attempt - 2)); // 120, 240, 480
    let res: Response;
    try {
      res = await fetch(`${gatewayUrl()}/charge`, {
        method: "POST",
        headers: { "Content-Type": "application/json", "Idempotency-Key": key },
        body: JSON.stringify({ amount, idempotencyKey: key }),
        signal: AbortSignal.timeout(TIMEOUT_MS),
      });
    } catch (err) {
      last = (err as Error).name === "TimeoutError" ? "timed out" : (err as Error).message;
      continue;
    }
    const body = (await res.json().catch(() => ({}))) as ChargeResult;
    if (res.ok) {
      journal.finish(key, "charged");
      return body;
    }
    last = `HTTP ${res.status}`;
    if (!retryable(res.status)) {
      journal.finish(key, "refused");
      throw new Error(`charge of ${amount} refused by the gateway (${last})`);
    }
  }
  // Left open in the journal on purpose: the next call for this amount retries with the same key.
  throw new Error(`charge of ${amount} failed after ${ATTEMPTS} attempts (${last})`);
}
