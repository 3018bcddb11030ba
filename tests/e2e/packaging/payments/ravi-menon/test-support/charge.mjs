// A separate process that charges once (for the restart test).
import { chargeWithRetry } from "../checkout.mjs";
await chargeWithRetry(Number(process.argv[2]));
