// One charge in a process of its own, the way the shop's worker would run it.
const { chargeWithRetry } = await import(new URL("../../checkout.mjs", import.meta.url));
console.log(JSON.stringify(await chargeWithRetry(Number(process.argv[2]))));
