/**
 * Report events from a domain's figures: a new source failing DMARC in volume, a falling
 * pass rate, reports that stopped arriving. Each function returns the conditions that hold
 * now (as events); updateConditions with reportConditionScope decides which fire.
 */
import { z } from "zod";
import { conditionKey, conditionScope } from "./conditions";
import type { AlertEvent, ReportEventType } from "./events";

export interface AlertThresholds {
  /** a source seen for the first time within this many hours counts as new */
  newSourceWindowHours: number;
  /** a new source alerts once it sent more than this many messages failing DMARC */
  newSourceMinFailed: number;
  /** the last day's pass rate (%) below this alerts */
  passRateBelow: number;
  /** …and so does a last day this many percentage points below the previous 7 days */
  passRateDropPoints: number;
  /** days with fewer messages than this are too small to judge a pass rate */
  passRateMinMessages: number;
  /** a domain that received reports and then none for this many hours alerts */
  reportsStoppedHours: number;
}

export const DEFAULT_ALERT_THRESHOLDS: Readonly<AlertThresholds> = Object.freeze({
  newSourceWindowHours: 24,
  newSourceMinFailed: 10,
  passRateBelow: 90,
  passRateDropPoints: 10,
  passRateMinMessages: 20,
  reportsStoppedHours: 72,
});

/** What an organisation may set (every field optional; the defaults fill the rest). */
export const alertThresholdsSchema = z
  .object({
    newSourceWindowHours: z.number().int().min(1).max(24 * 30),
    newSourceMinFailed: z.number().int().min(0).max(10_000_000),
    passRateBelow: z.number().min(0).max(100),
    passRateDropPoints: z.number().min(0).max(100),
    passRateMinMessages: z.number().int().min(1).max(10_000_000),
    reportsStoppedHours: z.number().int().min(24).max(24 * 90),
  })
  .partial()
  .strict();

/** The thresholds in force: the organisation's own where set, else the defaults. */
export function alertThresholds(overrides?: Partial<AlertThresholds> | null): AlertThresholds {
  const set = Object.fromEntries(Object.entries(overrides ?? {}).filter(([, v]) => typeof v === "number" && Number.isFinite(v)));
  return { ...DEFAULT_ALERT_THRESHOLDS, ...set };
}

/** The active-key scope of one report evaluator for one domain. */
export const reportConditionScope = (domain: string, types: readonly ReportEventType[]) => conditionScope(domain.toLowerCase(), types);

const HOUR = 3_600_000;

export interface SourceFigures {
  sourceIp: string;
  /** when any report first showed this source sending as the domain */
  firstSeenAt: Date;
  /** messages from it that failed DMARC (since it was first seen) */
  failedMessages: number;
  /** total messages from it (since it was first seen) */
  messages: number;
  /** reverse-DNS name or organisation, when known */
  sourceName?: string | null;
}

/** New sources (first seen within the window) that sent more than the threshold of failing messages. */
export function newFailingSourceConditions(input: { domain: string; sources: SourceFigures[]; now: Date; thresholds?: AlertThresholds }): AlertEvent[] {
  const t = input.thresholds ?? DEFAULT_ALERT_THRESHOLDS;
  const domain = input.domain.toLowerCase();
  const since = input.now.getTime() - t.newSourceWindowHours * HOUR;
  return input.sources
    .filter((s) => s.firstSeenAt.getTime() >= since && s.failedMessages > t.newSourceMinFailed)
    .map((s) => ({
      type: "reports.new_failing_source" as const,
      domain,
      data: { sourceIp: s.sourceIp, sourceName: s.sourceName ?? null, failedMessages: s.failedMessages, messages: s.messages, firstSeenAt: s.firstSeenAt.toISOString(), threshold: t.newSourceMinFailed },
      dedupeKey: conditionKey("reports.new_failing_source", domain, s.sourceIp),
    }));
}

export interface PassFigures {
  messages: number;
  /** messages that passed DMARC */
  passed: number;
}

/** Percentage with one decimal, or null for no messages. */
export function passRate(figures: PassFigures): number | null {
  return figures.messages > 0 ? Math.round((figures.passed / figures.messages) * 1000) / 10 : null;
}

/** The last day's pass rate below the threshold, or that many points below the previous 7 days. */
export function passRateConditions(input: { domain: string; lastDay: PassFigures; previousWeek: PassFigures; thresholds?: AlertThresholds }): AlertEvent[] {
  const t = input.thresholds ?? DEFAULT_ALERT_THRESHOLDS;
  const domain = input.domain.toLowerCase();
  if (input.lastDay.messages < t.passRateMinMessages) return [];
  const rate = passRate(input.lastDay)!;
  const previous = input.previousWeek.messages >= t.passRateMinMessages ? passRate(input.previousWeek) : null;
  const reasons: string[] = [];
  if (rate < t.passRateBelow) reasons.push("below_threshold");
  if (previous !== null && previous - rate > t.passRateDropPoints) reasons.push("dropped");
  if (!reasons.length) return [];
  return [
    {
      type: "reports.pass_rate_low",
      domain,
      data: { reasons, before: previous, after: rate, messages: input.lastDay.messages, passed: input.lastDay.passed, threshold: t.passRateBelow, dropPoints: t.passRateDropPoints },
      dedupeKey: conditionKey("reports.pass_rate_low", domain),
    },
  ];
}

/** A domain that received reports before and none in the last `reportsStoppedHours`. */
export function reportsStoppedConditions(input: { domain: string; lastReportAt: Date | null; now: Date; thresholds?: AlertThresholds }): AlertEvent[] {
  const t = input.thresholds ?? DEFAULT_ALERT_THRESHOLDS;
  const domain = input.domain.toLowerCase();
  // a domain that never received a report has not "stopped"
  if (!input.lastReportAt) return [];
  const silentHours = (input.now.getTime() - input.lastReportAt.getTime()) / HOUR;
  if (silentHours < t.reportsStoppedHours) return [];
  return [
    {
      type: "reports.stopped",
      domain,
      data: { before: input.lastReportAt.toISOString(), after: null, lastReportAt: input.lastReportAt.toISOString(), silentHours: Math.floor(silentHours), threshold: t.reportsStoppedHours },
      dedupeKey: conditionKey("reports.stopped", domain),
    },
  ];
}
