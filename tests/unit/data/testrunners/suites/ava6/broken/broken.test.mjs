import test from "ava";
import { charge } from "../missing.mjs";

test("never runs", (t) => t.truthy(charge));
