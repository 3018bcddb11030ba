import t from "tap";
import { add, greet } from "../lib.mjs";

t.test("adds two numbers", async (t) => {
  t.equal(add(2, 3), 5);
});
t.test("greets by name", async (t) => {
  t.equal(greet("ada"), "hello ada");
});
t.test("fails on purpose", async (t) => {
  t.equal(add(2, 2), 5);
});
