import assert from "node:assert/strict";
describe("three failures", () => {
  it("one", () => assert.equal(1, 2));
  it("two", () => assert.equal(1, 3));
  it("three", () => assert.equal(1, 4));
  it("passes", () => assert.equal(1, 1));
});
