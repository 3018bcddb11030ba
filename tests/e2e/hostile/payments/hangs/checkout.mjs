// Never settles; a timer keeps node from exiting on its own.
export async function chargeWithRetry(amount) {
  await new Promise(() => setInterval(() => {}, 1000));
}
