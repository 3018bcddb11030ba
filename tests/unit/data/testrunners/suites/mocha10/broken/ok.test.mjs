import assert from "node:assert/strict";
import { add, greet } from "../lib.mjs";

describe("ok file", () => {
  it("adds two numbers", () => assert.equal(add(2, 3), 5));
  it("greets by name", () => assert.equal(greet("ada"), "hello ada"));
});
