/**
 * The bound on outbound alerts: each channel gets at most an organisation's limit of deliveries
 * in any window of ALERT_WINDOW_SECONDS. What comes past it is held, and once the window has
 * room again the channel gets one summary of what was held instead (counts per kind, the
 * domains and sources involved, each list cut to a few entries).
 */
import { z } from "zod";
import type { AlertEventType } from "./events";

/** The window the limit applies to: any 10 minutes. */
export const ALERT_WINDOW_SECONDS = 600;
export const ALERT_WINDOW_MINUTES = ALERT_WINDOW_SECONDS / 60;

/** Deliveries per channel and window an organisation may choose (Settings), and the default. */
export const ALERT_LIMIT = { min: 1, max: 100, default: 10 } as const;

const LIMIT_MESSAGE = `Enter a whole number of alerts from ${ALERT_LIMIT.min} to ${ALERT_LIMIT.max}`;

/** PUT /api/alerts/limit */
export const alertLimitSchema = z
  .object({ perWindow: z.number({ error: LIMIT_MESSAGE }).int(LIMIT_MESSAGE).min(ALERT_LIMIT.min, LIMIT_MESSAGE).max(ALERT_LIMIT.max, LIMIT_MESSAGE) })
  .strict();

/** A limit as stored, or the default when it is out of bounds (a row written by hand). */
export function alertLimitOf(stored: number | null | undefined): number {
  return typeof stored === "number" && Number.isInteger(stored) && stored >= ALERT_LIMIT.min && stored <= ALERT_LIMIT.max ? stored : ALERT_LIMIT.default;
}

/** Entries each list of a summary names; the rest are counted as "more". */
export const SUMMARY_LIST_MAX = 10;

/** The data of a summary event (webhook receivers get it as the payload's `data`). */
export interface AlertSummaryData {
  limit: number;
  windowMinutes: number;
  /** how many alerts were held for the channel */
  held: number;
  /** when the first and the last of them were raised (ISO 8601) */
  from: string;
  to: string;
  /** per kind of alert, most first */
  kinds: { type: AlertEventType; count: number }[];
  /** the domains involved, most alerts first, at most SUMMARY_LIST_MAX */
  domains: { domain: string; count: number }[];
  moreDomains: number;
  /** the sending addresses involved (failing sources, failure reports), at most SUMMARY_LIST_MAX */
  sources: { sourceIp: string; count: number }[];
  moreSources: number;
}

const top = <K extends string>(counts: Map<string, number>, key: K, max: number) =>
  [...counts]
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .slice(0, max)
    .map(([name, count]) => ({ [key]: name, count }) as { [P in K]: string } & { count: number });

/** Counts held alerts one at a time (a burst can hold thousands), then gives the summary's data. */
export class HeldTally {
  private held = 0;
  private from = Infinity;
  private to = -Infinity;
  private readonly kinds = new Map<string, number>();
  private readonly domains = new Map<string, number>();
  private readonly sources = new Map<string, number>();

  add(event: { type: string; domain: string | null; data: Record<string, unknown>; occurredAt: Date }): void {
    this.held++;
    this.from = Math.min(this.from, event.occurredAt.getTime());
    this.to = Math.max(this.to, event.occurredAt.getTime());
    this.kinds.set(event.type, (this.kinds.get(event.type) ?? 0) + 1);
    if (event.domain) this.domains.set(event.domain, (this.domains.get(event.domain) ?? 0) + 1);
    const ip = event.data.sourceIp;
    if (typeof ip === "string" && ip) this.sources.set(ip, (this.sources.get(ip) ?? 0) + 1);
  }

  get count(): number {
    return this.held;
  }

  data(limit: number): AlertSummaryData {
    return {
      limit,
      windowMinutes: ALERT_WINDOW_MINUTES,
      held: this.held,
      from: new Date(this.from).toISOString(),
      to: new Date(this.to).toISOString(),
      kinds: top(this.kinds, "type", Infinity) as AlertSummaryData["kinds"],
      domains: top(this.domains, "domain", SUMMARY_LIST_MAX),
      moreDomains: Math.max(0, this.domains.size - SUMMARY_LIST_MAX),
      sources: top(this.sources, "sourceIp", SUMMARY_LIST_MAX),
      moreSources: Math.max(0, this.sources.size - SUMMARY_LIST_MAX),
    };
  }
}
