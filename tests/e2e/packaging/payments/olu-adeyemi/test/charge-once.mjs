// Used by the restart test: one process, one charge.
const { chargeWithRetry } = await import("../checkout.mjs");
await chargeWithRetry(Number(process.argv[2]));
