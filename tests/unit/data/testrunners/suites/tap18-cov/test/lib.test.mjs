import t from "tap";
import { classify } from "../lib.mjs";
t.test("positive", async (t) => t.equal(classify(2), "positive"));
t.test("negative", async (t) => t.equal(classify(-2), "negative"));
