import { describe, expect, test } from "bun:test";
import { bucketLabels, bucketOf, colourBounds } from "./colour-scale";

describe("colourBounds", () => {
  test("nice bounds spread on a log scale, starting at 1", () => {
    expect(colourBounds(10_000)).toEqual([1, 5, 20, 200, 1000]);
    expect(colourBounds(100)).toEqual([1, 2, 5, 10, 20]);
  });
  test("fewer buckets when counts are small; never empty", () => {
    expect(colourBounds(3)).toEqual([1, 2]);
    expect(colourBounds(1)).toEqual([1]);
    expect(colourBounds(0)).toEqual([1]);
    expect(colourBounds(Number.NaN)).toEqual([1]);
  });
});

describe("bucketOf", () => {
  const bounds = [1, 5, 20, 200, 1000];
  test("no messages is no bucket", () => {
    expect(bucketOf(0, bounds)).toBe(-1);
    expect(bucketOf(-3, bounds)).toBe(-1);
    expect(bucketOf(Number.NaN, bounds)).toBe(-1);
  });
  test("the last bound a count reaches", () => {
    expect([1, 4, 5, 19, 20, 999, 1000, 50_000].map((c) => bucketOf(c, bounds))).toEqual([0, 0, 1, 1, 2, 3, 4, 4]);
  });
  test("the largest count lands in the darkest bucket", () => {
    for (const max of [1, 2, 7, 42, 999, 123_456]) {
      const b = colourBounds(max);
      expect(bucketOf(max, b)).toBe(b.length - 1);
    }
  });
});

describe("bucketLabels", () => {
  test("ranges, a single value when a bucket holds one, and an open top", () => {
    expect(bucketLabels([1, 2, 5, 10, 1000])).toEqual(["1", "2–4", "5–9", "10–999", "1,000+"]);
    expect(bucketLabels([1])).toEqual(["1+"]);
  });
});
