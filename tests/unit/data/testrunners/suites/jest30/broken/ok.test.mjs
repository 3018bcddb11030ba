import { describe, expect, test } from "@jest/globals";
import { add, greet } from "../lib.mjs";

test("adds two numbers", () => expect(add(2, 3)).toBe(5));
test("greets by name", () => expect(greet("ada")).toBe("hello ada"));
