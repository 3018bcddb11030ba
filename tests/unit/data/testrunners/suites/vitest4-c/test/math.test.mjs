import { describe, expect, test } from "vitest";
import { add, greet } from "../lib.mjs";

describe("math", () => {
  test("adds two numbers", () => {
    expect(add(2, 3)).toBe(5);
  });
  test("greets by name", () => {
    expect(greet("ada")).toBe("hello ada");
  });
  test("fails on purpose", () => {
    expect(add(2, 2)).toBe(5);
  });
});
