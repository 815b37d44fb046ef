/** Shapes of the dashboard, tasks and threats API (SPEC §3), shared with the UI. */
import { z } from "zod";
import type { ThreatLevel } from "../../lib/threat-level";

export type { Task, TaskPriority, TaskCategory } from "../../lib/tasks";
export type { ThreatLevel } from "../../lib/threat-level";

/** SPEC §3 Dashboard stats. Change values are strings beginning with + or -. */
export interface DashboardStats {
  totalDomains: number;
  /** domains whose DMARC policy is enforced (quarantine or reject) */
  dmarcProtected: number;
  /** dmarcProtected / totalDomains, whole percent (0 without domains) */
  protectionRate: number;
  /** domains added in the last 30 days, e.g. "+2" */
  domainGrowth: string;
  /** open tasks (GET /api/tasks) */
  activeIssues: number;
  /** open tasks now minus open tasks 30 days ago, e.g. "-3" */
  issueChange: string;
  /** reports (aggregate, failure and TLS) processed in the last 30 days */
  reportsProcessed: number;
  /** reportsProcessed against the 30 days before, in percent, e.g. "+12%" */
  reportGrowth: string;
  /** messages covered by the aggregate reports of the last 30 days and the share passing DMARC */
  messagesLast30Days: number;
  passRateLast30Days: number | null;
}

/** SPEC §3 IP threat: one source IP that sent DMARC-failing mail as the organisation's domains in the last 24 h. */
export interface IpThreat {
  ipAddress: string;
  /** English country name ("Unknown" when the IP could not be located) */
  country: string;
  /** ISO 3166-1 alpha-2 code, null when unknown */
  countryCode: string | null;
  /** city, "" when unknown (the embedded database is country-level) */
  city: string;
  /** failing messages (sum of record counts) */
  attemptCount: number;
  /** of which delivered anyway (disposition none) */
  deliveredCount: number;
  threatLevel: ThreatLevel;
  lastSeenAt: string;
  /** reverse DNS name and recognised sending service, when known */
  ptr: string | null;
  service: string | null;
  /** the organisation's domains it claimed to send as */
  domains: string[];
}

/**
 * The window of the threat list ("last 24 hours"), in daily roll-up days: reports whose period
 * began today (UTC) or on the two days before. Daily reports arrive up to a day after the
 * period they cover, so yesterday's period is the freshest most receivers have reported, and
 * the day before holds the late ones (docs/rollups.md).
 */
export const THREAT_DAYS = 3;
export const MAX_THREATS = 500;
/** Stats compare this many days with the same number before. */
export const STATS_PERIOD_DAYS = 30;

/** The threat map's ranges: the last 24 hours (SPEC's "Last 24h"), 7 days, 30 days. */
export const THREAT_MAP_RANGES = ["24h", "7d", "30d"] as const;
export type ThreatMapRange = (typeof THREAT_MAP_RANGES)[number];
/** UTC days of roll-ups each range reads, today included: "24h" is today and yesterday (reports arrive about a day after their period). */
export const THREAT_MAP_DAYS: Record<ThreatMapRange, number> = { "24h": 2, "7d": 7, "30d": 30 };
const RANGE_MESSAGE = 'range must be "24h", "7d" or "30d"';
export const threatCountriesQuerySchema = z.object({ range: z.enum(THREAT_MAP_RANGES, { error: RANGE_MESSAGE }).default("24h") });

/** GET /api/threats/countries?range=: DMARC-failing messages by country. */
export interface ThreatCountries {
  range: ThreatMapRange;
  /** the UTC days read, "YYYY-MM-DD", both included */
  from: string;
  to: string;
  /** failing messages by ISO 3166-1 alpha-2 code (countries without failing mail left out) */
  counts: Record<string, number>;
  /** failing messages from IPs that could not be located */
  unlocated: number;
}
