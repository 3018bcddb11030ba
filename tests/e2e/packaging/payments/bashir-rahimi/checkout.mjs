// The client is written in TypeScript (src/checkout.ts) and compiled to dist/ by `tsc`
// (package.json's `pretest` runs it before the tests). This file is the entry point the
// handout asks for.
export { chargeWithRetry } from "./dist/checkout.js";
