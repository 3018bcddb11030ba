import { test } from "node:test";
import assert from "node:assert/strict";
import { add, greet } from "../lib.mjs";

test("adds two numbers", () => {
  assert.equal(add(2, 3), 5);
});
test("greets by name", () => {
  assert.equal(greet("ada"), "hello ada");
});
test("fails on purpose", () => {
  assert.equal(add(2, 2), 5);
});
