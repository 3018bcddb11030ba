// node test/charge-in-child.mjs AMOUNT: what a separate process (the one restarted) does.
const { chargeWithRetry } = await import(new URL("../checkout.mjs", import.meta.url));
const result = await chargeWithRetry(Number(process.argv[2]));
process.stdout.write(JSON.stringify(result));
