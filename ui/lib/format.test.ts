import { describe, expect, test } from "bun:test";
import { formatCount, formatNotificationTime, formatPercent, formatRelativeTime, formatReportsProcessed, passRateClass, passRateTone } from "./format";

const now = new Date("2025-06-01T12:00:00Z");
const ago = (ms: number) => new Date(now.getTime() - ms);
const MIN = 60_000;
const HOUR = 60 * MIN;

describe("format helpers (SPEC §9)", () => {
  test.each([
    [0, "Just now"],
    [59 * MIN, "Just now"],
    [HOUR, "1h ago"],
    [23 * HOUR + 59 * MIN, "23h ago"],
    [24 * HOUR, "1d ago"],
    [72 * HOUR + 5 * MIN, "3d ago"],
  ])("relative time %p ms ago → %p", (elapsed, text) => {
    expect(formatRelativeTime(ago(elapsed), now)).toBe(text);
  });

  test("relative time accepts ISO strings and a future time reads Just now", () => {
    expect(formatRelativeTime(ago(5 * HOUR).toISOString(), now)).toBe("5h ago");
    expect(formatRelativeTime(new Date(now.getTime() + HOUR), now)).toBe("Just now");
  });

  test.each([
    [0, "0m ago"],
    [5 * MIN, "5m ago"],
    [59 * MIN, "59m ago"],
    [HOUR, "1h ago"],
    [23 * HOUR, "23h ago"],
    [24 * HOUR, "1d ago"],
  ])("notification time %p ms ago → %p", (elapsed, text) => {
    expect(formatNotificationTime(ago(elapsed), now)).toBe(text);
  });

  test("reports processed in thousands with one decimal", () => {
    expect(formatReportsProcessed(1247)).toBe("1.2K");
    expect(formatReportsProcessed(15_680)).toBe("15.7K");
    expect(formatReportsProcessed(0)).toBe("0.0K");
  });

  test("counts and percentages", () => {
    expect(formatCount(1247)).toBe("1,247");
    expect(formatPercent(98.54)).toBe("98.5%");
    expect(formatPercent(72)).toBe("72%");
  });

  test.each([
    [100, "green"],
    [95, "green"],
    [94.9, "orange"],
    [80, "orange"],
    [79.9, "red"],
    [0, "red"],
  ] as const)("pass rate %p is %p", (rate, tone) => {
    expect(passRateTone(rate)).toBe(tone);
  });

  test("pass-rate classes are green, orange and red", () => {
    expect(passRateClass(97)).toContain("green");
    expect(passRateClass(85)).toContain("orange");
    expect(passRateClass(60)).toContain("red");
  });
});
