// The client is written in TypeScript (src/) and compiled to dist/ by `npm run build`.
export { chargeWithRetry } from "./dist/checkout.js";
