import { describe, expect, test } from "bun:test";
import { addDays, daysBetween, fillTrendDays, isEmptyTrend, lastDays, passRate, rangeProblem, trendTotals } from "./trends";

describe("fillTrendDays", () => {
  test("one entry per UTC day, oldest first, zeros for the missing days", () => {
    const days = fillTrendDays("2026-02-27", "2026-03-02", [
      { date: "2026-03-01", messages: 10, passed: 7, failed: 3, rejected: 2 },
      { date: "2026-02-27", messages: 4, passed: 4, failed: 0, spfAligned: 4, dkimAligned: 3 },
    ]);
    expect(days.map((d) => d.date)).toEqual(["2026-02-27", "2026-02-28", "2026-03-01", "2026-03-02"]);
    expect(days[0]).toEqual({ date: "2026-02-27", messages: 4, passed: 4, failed: 0, quarantined: 0, rejected: 0, spfAligned: 4, dkimAligned: 3 });
    expect(days[1]).toEqual({ date: "2026-02-28", messages: 0, passed: 0, failed: 0, quarantined: 0, rejected: 0, spfAligned: 0, dkimAligned: 0 });
    expect(days[2]!.rejected).toBe(2);
    expect(days[3]!.messages).toBe(0);
  });

  test("entries of the same day add up; entries outside the range are dropped", () => {
    const days = fillTrendDays("2026-01-01", "2026-01-02", [
      { date: "2026-01-02", messages: 3, passed: 1, failed: 2 },
      { date: "2026-01-02", messages: 5, passed: 5, failed: 0 },
      { date: "2025-12-31", messages: 100, passed: 100 },
      { date: "2026-01-03", messages: 100, passed: 100 },
    ]);
    expect(days.map((d) => [d.date, d.messages, d.passed, d.failed])).toEqual([
      ["2026-01-01", 0, 0, 0],
      ["2026-01-02", 8, 6, 2],
    ]);
  });

  test("a leap day and a year end are days like any other", () => {
    expect(fillTrendDays("2028-02-28", "2028-03-01", []).map((d) => d.date)).toEqual(["2028-02-28", "2028-02-29", "2028-03-01"]);
    expect(fillTrendDays("2025-12-31", "2026-01-01", []).map((d) => d.date)).toEqual(["2025-12-31", "2026-01-01"]);
  });

  test("an inverted or malformed range has no days", () => {
    expect(fillTrendDays("2026-01-05", "2026-01-01", [])).toEqual([]);
    expect(fillTrendDays("2026-02-30", "2026-03-01", [])).toEqual([]);
  });
});

describe("day arithmetic", () => {
  test("lastDays counts today, in UTC whatever the local time zone", () => {
    expect(lastDays(7, new Date("2026-03-10T23:30:00-05:00"))).toEqual({ from: "2026-03-05", to: "2026-03-11" });
    expect(lastDays(1, new Date("2026-03-10T00:00:00Z"))).toEqual({ from: "2026-03-10", to: "2026-03-10" });
    expect(daysBetween(...(Object.values(lastDays(90, new Date("2026-03-10T12:00:00Z"))) as [string, string]))).toBe(90);
  });
  test("addDays crosses months", () => {
    expect(addDays("2026-03-01", -1)).toBe("2026-02-28");
    expect(addDays("2026-01-31", 1)).toBe("2026-02-01");
  });
});

describe("passRate", () => {
  test("percent of messages that passed", () => {
    expect(passRate(3, 4)).toBe(75);
    expect(passRate(10, 10)).toBe(100);
    expect(passRate(0, 5)).toBe(0);
  });
  test("no messages: no rate rather than a division by zero", () => {
    expect(passRate(0, 0)).toBeNull();
    expect(passRate(5, 0)).toBeNull();
  });
  test("totals of a series carry its overall rate", () => {
    const days = fillTrendDays("2026-01-01", "2026-01-03", [
      { date: "2026-01-01", messages: 10, passed: 9, failed: 1 },
      { date: "2026-01-03", messages: 30, passed: 21, failed: 9 },
    ]);
    const t = trendTotals(days);
    expect([t.messages, t.passed, t.failed, t.passRate]).toEqual([40, 30, 10, 75]);
    expect(trendTotals(fillTrendDays("2026-01-01", "2026-01-03", [])).passRate).toBeNull();
  });
  test("isEmptyTrend: every day zero", () => {
    expect(isEmptyTrend(fillTrendDays("2026-01-01", "2026-01-03", []))).toBe(true);
    expect(isEmptyTrend(fillTrendDays("2026-01-01", "2026-01-03", [{ date: "2026-01-02", messages: 1, passed: 1 }]))).toBe(false);
  });
});

describe("rangeProblem", () => {
  test("a range from ≤ to of at most 400 days is fine", () => {
    expect(rangeProblem("2026-01-01", "2026-01-01")).toBeNull();
    expect(rangeProblem("2025-01-01", "2026-02-04")).toBeNull(); // 400 days
  });
  test("refuses an inverted, too long or incomplete range, saying what to change", () => {
    expect(rangeProblem("2026-01-02", "2026-01-01")).toBe("The start date must be on or before the end date.");
    expect(rangeProblem("2025-01-01", "2026-02-05")).toBe("Choose a range of at most 400 days.");
    expect(rangeProblem("", "2026-01-01")).toBe("Choose a start date.");
    expect(rangeProblem("2026-01-01", "")).toBe("Choose an end date.");
  });
});
