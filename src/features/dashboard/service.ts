/**
 * The dashboard's numbers, the derived tasks and the last day's threats, always within one
 * organisation. Queries live here; the rules (what is a task, how bad is a source) are pure
 * functions in src/lib/tasks.ts and src/lib/threat-level.ts.
 */
import type { Database } from "bun:sqlite";
import { deriveTasks, REPORT_WINDOW_DAYS, statusSince, type DomainState, type DomainTraffic, type FailingSender, type StatusHistoryRow, type Task } from "../../lib/tasks";
import { threatLevel } from "../../lib/threat-level";
import { MAX_THREATS, STATS_PERIOD_DAYS, THREAT_LATE_REPORT_HOURS, THREAT_WINDOW_HOURS, type DashboardStats, type IpThreat } from "./contract";

const DAY = 86_400;
const HOUR = 3_600;
const secs = (d: Date) => Math.floor(d.getTime() / 1000);
const date = (s: number) => new Date(s * 1000);

interface DomainRow {
  id: string;
  name: string;
  dmarcPolicy: string | null;
  spfStatus: string | null;
  dkimStatus: string | null;
  createdAt: number;
  lastReportAt: number | null;
}

function historyByDomain(sqlite: Database, orgId: string, until: number): Map<string, StatusHistoryRow[]> {
  const rows = sqlite
    .query(
      `SELECT domain_id AS domainId, checked_at AS checkedAt, dmarc_policy AS dmarcPolicy, spf_status AS spfStatus, dkim_status AS dkimStatus, dmarc_record AS dmarcRecord
       FROM domain_record_history WHERE org_id = ? AND checked_at <= ? ORDER BY domain_id, checked_at`,
    )
    .all(orgId, until) as (Omit<StatusHistoryRow, "checkedAt"> & { checkedAt: number })[];
  const out = new Map<string, StatusHistoryRow[]>();
  for (const r of rows) {
    let list = out.get(r.domainId);
    if (!list) out.set(r.domainId, (list = []));
    list.push({ ...r, checkedAt: date(r.checkedAt) });
  }
  return out;
}

/**
 * The organisation's domains as they stood at `at`: the domain rows themselves for now, the
 * DNS check history for a past moment (statuses of the last check before it).
 */
function domainStatesAt(sqlite: Database, orgId: string, at: Date, current: boolean): DomainState[] {
  const until = secs(at);
  const rows = sqlite
    .query(
      `SELECT id, name, dmarc_policy AS dmarcPolicy, spf_status AS spfStatus, dkim_status AS dkimStatus, created_at AS createdAt, last_report_at AS lastReportAt
       FROM domains WHERE org_id = ? AND created_at <= ? ORDER BY name`,
    )
    .all(orgId, until) as DomainRow[];
  const history = historyByDomain(sqlite, orgId, until);
  const pastReports = current
    ? null
    : new Map(
        (
          sqlite
            .query(`SELECT domain_id AS domainId, MAX(MIN(date_end, processed_at)) AS last FROM aggregate_reports WHERE org_id = ? AND processed_at <= ? GROUP BY domain_id`)
            .all(orgId, until) as { domainId: string; last: number }[]
        ).map((r) => [r.domainId, r.last]),
      );
  return rows.map((row) => {
    const rowsOf = history.get(row.id) ?? [];
    const last = rowsOf.at(-1);
    const since = statusSince(rowsOf);
    if (current) {
      return {
        id: row.id,
        name: row.name,
        dmarcPolicy: row.dmarcPolicy,
        spfStatus: row.spfStatus,
        dkimStatus: row.dkimStatus,
        dmarcRecord: last?.dmarcRecord ?? null,
        createdAt: date(row.createdAt),
        lastReportAt: row.lastReportAt ? date(row.lastReportAt) : null,
        // statuses written without a history row (none yet) date from the domain's creation
        since: last && last.dmarcPolicy === row.dmarcPolicy && last.spfStatus === row.spfStatus && last.dkimStatus === row.dkimStatus ? since : undefined,
      };
    }
    const lastReport = pastReports!.get(row.id);
    return {
      id: row.id,
      name: row.name,
      dmarcPolicy: last?.dmarcPolicy ?? null,
      spfStatus: last?.spfStatus ?? null,
      dkimStatus: last?.dkimStatus ?? null,
      dmarcRecord: last?.dmarcRecord ?? null,
      createdAt: date(row.createdAt),
      lastReportAt: lastReport ? date(lastReport) : null,
      since,
    };
  });
}

/** DMARC-failing mail per domain and sending service over the report window ending at `at`. */
function failingSenders(sqlite: Database, orgId: string, at: Date): FailingSender[] {
  const to = secs(at);
  const from = to - REPORT_WINDOW_DAYS * DAY;
  const rows = sqlite
    .query(
      `SELECT r.domain_id AS domainId, rec.service AS service, COUNT(DISTINCT rec.source_ip) AS sources, SUM(rec.message_count) AS messages,
              SUM(CASE WHEN rec.disposition = 'none' THEN rec.message_count ELSE 0 END) AS delivered, MIN(rec.date_begin) AS firstSeen
       FROM aggregate_records rec JOIN aggregate_reports r ON r.id = rec.report_id
       WHERE rec.org_id = ? AND rec.dmarc_pass = 0 AND rec.date_begin > ? AND rec.date_begin <= ? AND r.processed_at <= ?
       GROUP BY r.domain_id, rec.service`,
    )
    .all(orgId, from, to, to) as (Omit<FailingSender, "firstSeenAt"> & { firstSeen: number })[];
  return rows.map(({ firstSeen, ...r }) => ({ ...r, firstSeenAt: date(firstSeen) }));
}

function domainTraffic(sqlite: Database, orgId: string, at: Date): DomainTraffic[] {
  const to = secs(at);
  return sqlite
    .query(
      `SELECT domain_id AS domainId, SUM(message_count) AS messages, SUM(pass_count) AS passing
       FROM aggregate_reports WHERE org_id = ? AND date_begin > ? AND date_begin <= ? AND processed_at <= ? GROUP BY domain_id`,
    )
    .all(orgId, to - REPORT_WINDOW_DAYS * DAY, to, to) as DomainTraffic[];
}

/** Settings → DMARC rua when set, else this server's report address for the organisation (if it receives mail). */
function ruaAddress(sqlite: Database, orgId: string, fallback: string | null): string | null {
  const row = sqlite.query(`SELECT dmarc_rua AS rua FROM organization_settings WHERE org_id = ?`).get(orgId) as { rua: string | null } | null;
  return row?.rua?.replace(/^mailto:/i, "") || fallback;
}

/** The organisation's tasks as they stand at `at` (now, or a past moment for comparisons). */
export function tasksAt(sqlite: Database, orgId: string, at: Date, current = true, fallbackRua: string | null = null): Task[] {
  return deriveTasks({
    now: at,
    domains: domainStatesAt(sqlite, orgId, at, current),
    failing: failingSenders(sqlite, orgId, at),
    traffic: domainTraffic(sqlite, orgId, at),
    ruaAddress: ruaAddress(sqlite, orgId, fallbackRua),
  });
}

export function listTasks(sqlite: Database, orgId: string, now: Date, fallbackRua: string | null = null): Task[] {
  return tasksAt(sqlite, orgId, now, true, fallbackRua);
}

/** "+3", "-2", "+0". */
export function signed(value: number, suffix = ""): string {
  return `${value < 0 ? "-" : "+"}${Math.abs(value)}${suffix}`;
}

/** Percentage change from `before` to `now`, whole percent; from nothing to something is +100%. */
export function growthPercent(now: number, before: number): string {
  if (before === 0) return now > 0 ? "+100%" : "+0%";
  return signed(Math.round(((now - before) / before) * 100), "%");
}

function reportsProcessedBetween(sqlite: Database, orgId: string, from: number, to: number): number {
  const row = sqlite
    .query(
      `SELECT (SELECT COUNT(*) FROM aggregate_reports WHERE org_id = ?1 AND processed_at > ?2 AND processed_at <= ?3)
            + (SELECT COUNT(*) FROM failure_reports WHERE org_id = ?1 AND processed_at > ?2 AND processed_at <= ?3)
            + (SELECT COUNT(*) FROM tls_reports WHERE org_id = ?1 AND processed_at > ?2 AND processed_at <= ?3) AS n`,
    )
    .get(orgId, from, to) as { n: number };
  return row.n;
}

export function dashboardStats(sqlite: Database, orgId: string, now: Date): DashboardStats {
  const t = secs(now);
  const periodStart = t - STATS_PERIOD_DAYS * DAY;
  const domains = sqlite.query(`SELECT dmarc_policy AS policy, created_at AS createdAt FROM domains WHERE org_id = ?`).all(orgId) as { policy: string | null; createdAt: number }[];
  const totalDomains = domains.length;
  const dmarcProtected = domains.filter((d) => d.policy === "quarantine" || d.policy === "reject").length;
  const activeIssues = tasksAt(sqlite, orgId, now, true).length;
  const issuesBefore = tasksAt(sqlite, orgId, new Date(periodStart * 1000), false).length;
  const reportsNow = reportsProcessedBetween(sqlite, orgId, periodStart, t);
  const reportsBefore = reportsProcessedBetween(sqlite, orgId, periodStart - STATS_PERIOD_DAYS * DAY, periodStart);
  const traffic = sqlite
    .query(`SELECT COALESCE(SUM(message_count), 0) AS messages, COALESCE(SUM(pass_count), 0) AS passing FROM aggregate_reports WHERE org_id = ? AND processed_at > ? AND processed_at <= ?`)
    .get(orgId, periodStart, t) as { messages: number; passing: number };
  return {
    totalDomains,
    dmarcProtected,
    protectionRate: totalDomains ? Math.round((dmarcProtected / totalDomains) * 100) : 0,
    domainGrowth: signed(domains.filter((d) => d.createdAt > periodStart).length),
    activeIssues,
    issueChange: signed(activeIssues - issuesBefore),
    reportsProcessed: reportsNow,
    reportGrowth: growthPercent(reportsNow, reportsBefore),
    messagesLast30Days: traffic.messages,
    passRateLast30Days: traffic.messages ? Math.round((traffic.passing / traffic.messages) * 1000) / 10 : null,
  };
}

const regionNames = new Intl.DisplayNames(["en"], { type: "region" });
function countryName(code: string | null): string {
  if (!code) return "Unknown";
  try {
    return regionNames.of(code.toUpperCase()) ?? code;
  } catch {
    return code;
  }
}

/**
 * Source IPs whose mail failed DMARC in the last 24 hours. A failing record counts when its
 * report's period reaches into the last 24 hours, or when the report arrived in the last 24
 * hours about the last 72 (daily reports arrive up to a day after their period ends).
 */
export function listThreats(sqlite: Database, orgId: string, now: Date): IpThreat[] {
  const t = secs(now);
  const windowStart = t - THREAT_WINDOW_HOURS * HOUR;
  const rows = sqlite
    .query(
      `SELECT rec.source_ip AS ip, SUM(rec.message_count) AS attempts,
              SUM(CASE WHEN rec.disposition = 'none' THEN rec.message_count ELSE 0 END) AS delivered,
              MAX(rec.country) AS country, MAX(rec.city) AS city, MAX(rec.ptr) AS ptr, MAX(rec.service) AS service,
              MAX(MIN(r.date_end, r.processed_at, ?1)) AS lastSeen, GROUP_CONCAT(DISTINCT r.policy_domain) AS domains
       FROM aggregate_records rec JOIN aggregate_reports r ON r.id = rec.report_id
       WHERE rec.org_id = ?2 AND rec.dmarc_pass = 0 AND r.date_begin <= ?1 AND r.processed_at <= ?1
         AND (r.date_end > ?3 OR (r.processed_at > ?3 AND r.date_end > ?4))
       GROUP BY rec.source_ip ORDER BY attempts DESC LIMIT ?5`,
    )
    .all(t, orgId, windowStart, t - THREAT_LATE_REPORT_HOURS * HOUR, MAX_THREATS) as {
    ip: string;
    attempts: number;
    delivered: number;
    country: string | null;
    city: string | null;
    ptr: string | null;
    service: string | null;
    lastSeen: number;
    domains: string | null;
  }[];
  return rows.map((r) => ({
    ipAddress: r.ip,
    country: countryName(r.country),
    countryCode: r.country ? r.country.toUpperCase() : null,
    city: r.city ?? "",
    attemptCount: r.attempts,
    deliveredCount: r.delivered,
    threatLevel: threatLevel({ attempts: r.attempts, delivered: r.delivered, knownService: r.service }),
    lastSeenAt: date(r.lastSeen).toISOString(),
    ptr: r.ptr,
    service: r.service,
    domains: r.domains ? r.domains.split(",").sort() : [],
  }));
}
