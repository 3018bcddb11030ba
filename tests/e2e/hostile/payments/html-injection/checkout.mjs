// Markup in everything the kit shows: the key the gateway logs, console output, the thrown error.
const GATEWAY = process.env.GATEWAY_URL ?? "http://localhost:8099";
console.log("<script>alert('gradelib-xss-stdout')</script>");
console.error("<img src=x onerror=alert('gradelib-xss-stderr')>");

export async function chargeWithRetry(amount) {
  await fetch(`${GATEWAY}/charge`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-note": "<script>alert('gradelib-xss-header')</script>" },
    body: JSON.stringify({ amount, idempotencyKey: "<img src=x onerror=alert('gradelib-xss-key')>" }),
  });
  throw new Error("<script>alert('gradelib-xss-error')</script>");
}
