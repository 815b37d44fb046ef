/**
 * Daily roll-ups of an aggregate report, written by both report writers in the same
 * transaction as the report (and only when the report is new, so a duplicate changes nothing).
 *
 * The rule, the same as the migration's backfill: `day` is the UTC day (days since 1970-01-01)
 * of the report's `date_begin` — a report spanning several days counts on its first day;
 * `passed` counts messages with DMARC pass (aligned SPF or aligned DKIM); `quarantined` and
 * `rejected` count the disposition applied; `spfAligned`/`dkimAligned` the aligned verdict "pass";
 * the source row's country is the one located for its IP at ingest.
 */
import { recordPassesDmarc } from "../../lib/reports/aggregate";
import type { AggregateReport } from "../../lib/reports/model";

export interface RollupCounts {
  messages: number;
  passed: number;
  quarantined: number;
  rejected: number;
  spfAligned: number;
  dkimAligned: number;
}

export interface SourceRollup extends RollupCounts {
  sourceIp: string;
  country: string | null;
}

export interface ReportRollup {
  day: number;
  /** the domain's totals of the report, null when the report has no records */
  domain: RollupCounts | null;
  /** one row per source IP of the report */
  sources: SourceRollup[];
}

const SECONDS_PER_DAY = 86_400;

/** UTC days since 1970-01-01 of `date`. */
export function utcDay(date: Date): number {
  return Math.floor(date.getTime() / 1000 / SECONDS_PER_DAY);
}

const zero = (): RollupCounts => ({ messages: 0, passed: 0, quarantined: 0, rejected: 0, spfAligned: 0, dkimAligned: 0 });

/** The report's day totals, whole and per source IP (`countryOf` locates an IP). */
export function rollupReport(report: AggregateReport, countryOf: (ip: string) => string | null): ReportRollup {
  const day = utcDay(report.dateBegin);
  if (!report.records.length) return { day, domain: null, sources: [] };
  const domain = zero();
  const sources = new Map<string, SourceRollup>();
  for (const r of report.records) {
    let source = sources.get(r.sourceIp);
    if (!source) sources.set(r.sourceIp, (source = { sourceIp: r.sourceIp, country: countryOf(r.sourceIp), ...zero() }));
    for (const counts of [domain, source]) {
      counts.messages += r.count;
      if (recordPassesDmarc(r)) counts.passed += r.count;
      if (r.disposition === "quarantine") counts.quarantined += r.count;
      if (r.disposition === "reject") counts.rejected += r.count;
      if (r.spfAligned === "pass") counts.spfAligned += r.count;
      if (r.dkimAligned === "pass") counts.dkimAligned += r.count;
    }
  }
  return { day, domain, sources: [...sources.values()] };
}
