import { expect, test } from "bun:test";
import { byCodeUnit, greaterText } from "./order";

test("addresses and ids sort by code unit, as the stores' ORDER BY does, not by locale", () => {
  expect(["10.0.0.9", "10.0.0.10", "B", "a", "10.0.0.1"].sort(byCodeUnit)).toEqual(["10.0.0.1", "10.0.0.10", "10.0.0.9", "B", "a"]);
  expect(byCodeUnit("x", "x")).toBe(0);
});

test("the greater text as MAX() picks it, nulls ignored", () => {
  expect(greaterText(null, "DE")).toBe("DE");
  expect(greaterText("DE", null)).toBe("DE");
  expect(greaterText("DE", "US")).toBe("US");
  expect(greaterText("US", "DE")).toBe("US");
  expect(greaterText(null, null)).toBeNull();
});
