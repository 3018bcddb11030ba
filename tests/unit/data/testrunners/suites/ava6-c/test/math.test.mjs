import test from "ava";
import { add, greet } from "../lib.mjs";

test("adds two numbers", (t) => {
  t.is(add(2, 3), 5);
});
test("greets by name", (t) => {
  t.is(greet("ada"), "hello ada");
});
test("fails on purpose", (t) => {
  t.is(add(2, 2), 5);
});
