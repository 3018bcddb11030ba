import { test } from "uvu";
import * as assert from "uvu/assert";
import { add, greet } from "../lib.mjs";

test("adds two numbers", () => assert.is(add(2, 3), 5));
test("greets by name", () => assert.is(greet("ada"), "hello ada"));

test.run();
