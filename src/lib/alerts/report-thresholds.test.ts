import { describe, expect, test } from "bun:test";
import { updateConditions } from "./conditions";
import { alertThresholds, alertThresholdsSchema, DEFAULT_ALERT_THRESHOLDS, newFailingSourceConditions, passRate, passRateConditions, reportConditionScope, reportsStoppedConditions } from "./report-thresholds";

const now = new Date("2026-05-10T12:00:00Z");
const hoursAgo = (h: number) => new Date(now.getTime() - h * 3_600_000);

describe("report thresholds", () => {
  test("defaults: 90% pass rate, 10 points drop, 72 hours without reports", () => {
    expect(DEFAULT_ALERT_THRESHOLDS).toMatchObject({ passRateBelow: 90, passRateDropPoints: 10, reportsStoppedHours: 72 });
    expect(alertThresholds({ passRateBelow: 95 })).toEqual({ ...DEFAULT_ALERT_THRESHOLDS, passRateBelow: 95 });
    expect(alertThresholds(null)).toEqual({ ...DEFAULT_ALERT_THRESHOLDS });
    expect(alertThresholdsSchema.safeParse({ passRateBelow: 120 }).success).toBe(false);
    expect(alertThresholdsSchema.safeParse({ reportsStoppedHours: 48 }).success).toBe(true);
  });

  test("a new source above the threshold of failing messages alerts once; an old or small one does not", () => {
    const sources = [
      { sourceIp: "203.0.113.9", firstSeenAt: hoursAgo(3), failedMessages: 40, messages: 41, sourceName: "mail.spoofer.test" },
      { sourceIp: "198.51.100.1", firstSeenAt: hoursAgo(24 * 30), failedMessages: 500, messages: 900 },
      { sourceIp: "192.0.2.7", firstSeenAt: hoursAgo(1), failedMessages: 3, messages: 3 },
    ];
    const events = newFailingSourceConditions({ domain: "Example.com", sources, now });
    expect(events.map((e) => e.data.sourceIp)).toEqual(["203.0.113.9"]);
    expect(events[0]!.domain).toBe("example.com");
    expect(events[0]!.data).toMatchObject({ failedMessages: 40, messages: 41, sourceName: "mail.spoofer.test" });

    const scope = reportConditionScope("example.com", ["reports.new_failing_source"]);
    const first = updateConditions([], events, scope);
    expect(first.fire).toHaveLength(1);
    const later = newFailingSourceConditions({ domain: "example.com", sources: [{ ...sources[0]!, failedMessages: 90 }], now: hoursAgo(-2) });
    expect(updateConditions(first.active, later, scope).fire).toEqual([]);
  });

  test("the last day's pass rate below 90% alerts, with the previous 7 days for comparison", () => {
    const [event] = passRateConditions({ domain: "example.com", lastDay: { messages: 200, passed: 150 }, previousWeek: { messages: 1400, passed: 1372 } });
    expect(event?.type).toBe("reports.pass_rate_low");
    expect(event?.data).toMatchObject({ before: 98, after: 75, reasons: ["below_threshold", "dropped"] });
  });

  test("a drop of more than 10 points alerts even above the threshold; a small day is not judged", () => {
    const thresholds = alertThresholds({ passRateBelow: 50 });
    const [drop] = passRateConditions({ domain: "example.com", lastDay: { messages: 100, passed: 80 }, previousWeek: { messages: 700, passed: 693 }, thresholds });
    expect(drop?.data.reasons).toEqual(["dropped"]);
    expect(passRateConditions({ domain: "example.com", lastDay: { messages: 100, passed: 95 }, previousWeek: { messages: 700, passed: 693 } })).toEqual([]);
    expect(passRateConditions({ domain: "example.com", lastDay: { messages: 5, passed: 0 }, previousWeek: { messages: 700, passed: 693 } })).toEqual([]);
    expect(passRate({ messages: 0, passed: 0 })).toBeNull();
  });

  test("reports stopped: after 72 hours of silence, once; a new report clears it; a domain that never had reports is not 'stopped'", () => {
    const scope = reportConditionScope("example.com", ["reports.stopped"]);
    expect(reportsStoppedConditions({ domain: "example.com", lastReportAt: hoursAgo(71), now })).toEqual([]);
    expect(reportsStoppedConditions({ domain: "example.com", lastReportAt: null, now })).toEqual([]);
    const silent = reportsStoppedConditions({ domain: "example.com", lastReportAt: hoursAgo(80), now });
    const first = updateConditions([], silent, scope);
    expect(first.fire.map((e) => e.data.silentHours)).toEqual([80]);
    const stillSilent = updateConditions(first.active, reportsStoppedConditions({ domain: "example.com", lastReportAt: hoursAgo(80), now: hoursAgo(-24) }), scope);
    expect(stillSilent.fire).toEqual([]);
    const resumed = updateConditions(stillSilent.active, reportsStoppedConditions({ domain: "example.com", lastReportAt: hoursAgo(-23), now: hoursAgo(-24) }), scope);
    expect(resumed.cleared).toHaveLength(1);
    expect(updateConditions(resumed.active, silent, scope).fire).toHaveLength(1);
  });
});
