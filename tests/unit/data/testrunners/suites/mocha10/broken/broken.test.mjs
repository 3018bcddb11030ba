import assert from "node:assert/strict";
import { charge } from "../missing.mjs";

describe("broken file", () => {
  it("never runs", () => assert.ok(charge));
});
