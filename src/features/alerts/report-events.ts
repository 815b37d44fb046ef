/**
 * Report events, from the daily roll-ups (never the raw records): after a report is stored,
 * new sources failing DMARC in volume and a low or falling pass rate for its domain, a failure
 * report that arrived, and the "reports stopped" condition cleared; hourly, every domain that
 * received reports and then none for the organisation's threshold (reports stopped).
 */
import { claimLease } from "../../db/leases";
import type { Logger } from "../../log";
import { periodic } from "../../lib/periodic";
import { conditionKey } from "../../lib/alerts/conditions";
import type { AlertEvent } from "../../lib/alerts/events";
import { newFailingSourceConditions, passRateConditions, reportConditionScope, reportsStoppedConditions, type AlertThresholds, type SourceFigures } from "../../lib/alerts/report-thresholds";
import { domainsWithReports, lastReportAtOf } from "../domains/service";
import { domainDayFigures, newFailingSources } from "../reports/daily";
import { recordEvents, type AlertsDeps, type RecordedEvent } from "./events";
import { thresholdsOf } from "./thresholds";

const DAY_SECONDS = 86_400;

export interface StoredReportFacts {
  domain: { id: string; name: string };
  kind: "aggregate" | "failure" | "tls";
  /** the stored report's id (failure reports: one event each) */
  reportId: string;
  /** a failure report's facts for the alert */
  failure?: { sourceIp: string | null; reporter: string | null };
  /** one large report (src/lib/memory.ts): its events are recorded keeping memory near what is live */
  large?: boolean;
}

const HOUR_MS = 3_600_000;
const DAY_MS = DAY_SECONDS * 1000;

/** The conditions of one domain's report figures that hold now (new failing sources, pass rate, stopped). */
async function domainConditions(deps: AlertsDeps, orgId: string, domain: { id: string; name: string }, thresholds: AlertThresholds): Promise<AlertEvent[]> {
  const lastReportAt = await lastReportAtOf(deps, domain.id);
  const now = deps.now();
  const events: AlertEvent[] = [...reportsStoppedConditions({ domain: domain.name, lastReportAt, now, thresholds })];
  const figures = await domainDayFigures(deps, orgId, domain.id);
  if (figures) {
    const { lastDay, days } = figures;
    // "new" is judged against the latest day with data (reports arrive a day or more after the mail)
    const dataNow = new Date(Math.min(now.getTime(), (lastDay + 1) * DAY_MS));
    // a source is new when its first day starts within the window: only those are read, with their totals since
    const fromDay = Math.ceil((dataNow.getTime() - thresholds.newSourceWindowHours * HOUR_MS) / DAY_MS);
    const sources = await newFailingSources(deps, orgId, domain.id, { fromDay, toDay: lastDay, minFailed: thresholds.newSourceMinFailed });
    events.push(
      ...newFailingSourceConditions({
        domain: domain.name,
        sources: sources.map((r): SourceFigures => ({ sourceIp: r.sourceIp, firstSeenAt: new Date(r.firstDay * DAY_MS), failedMessages: r.messages - r.passed, messages: r.messages })),
        now: dataNow,
        thresholds,
      }),
    );
    const sum = (rows: typeof days) => rows.reduce((a, r) => ({ messages: a.messages + r.messages, passed: a.passed + r.passed }), { messages: 0, passed: 0 });
    events.push(...passRateConditions({ domain: domain.name, lastDay: sum(days.filter((r) => r.day === lastDay)), previousWeek: sum(days.filter((r) => r.day < lastDay)), thresholds }));
  }
  return events;
}

/**
 * The report events after reports were stored for an organisation (call right after the
 * ingest's write; its own write). Never throws: a report is stored whether or not this works.
 */
export async function recordReportEvents(deps: AlertsDeps & { log?: Logger }, orgId: string, stored: StoredReportFacts[]): Promise<RecordedEvent[]> {
  if (!stored.length) return [];
  try {
    const { thresholds } = await thresholdsOf(deps, orgId);
    const byDomain = new Map(stored.map((s) => [s.domain.id, s.domain]));
    const recorded: RecordedEvent[] = [];
    for (const domain of byDomain.values()) {
      const all = await domainConditions(deps, orgId, domain, thresholds);
      // a report arrived: it clears "reports stopped"; an old report does not raise it (the hourly job does)
      const stillSilent = all.some((e) => e.type === "reports.stopped");
      const current = all.filter((e) => e.type !== "reports.stopped");
      const scope = reportConditionScope(domain.name, stillSilent ? ["reports.new_failing_source", "reports.pass_rate_low"] : ["reports.new_failing_source", "reports.pass_rate_low", "reports.stopped"]);
      const large = stored.some((s) => s.large && s.domain.id === domain.id);
      recorded.push(...(await recordEvents(deps, orgId, current, { scope, large })));
    }
    const failures: AlertEvent[] = stored
      .filter((s) => s.kind === "failure")
      .map((s) => ({
        type: "reports.failure_report",
        domain: s.domain.name.toLowerCase(),
        data: { reportId: s.reportId, sourceIp: s.failure?.sourceIp ?? null, reporter: s.failure?.reporter ?? null },
        dedupeKey: conditionKey("reports.failure_report", s.domain.name, s.reportId),
      }));
    if (failures.length) recorded.push(...(await recordEvents(deps, orgId, failures)));
    return recorded;
  } catch (error) {
    deps.log?.error("report_events_failed", { orgId, error: String(error) });
    return [];
  }
}

/** Every domain that received reports: is it silent past its organisation's threshold? (The hourly job.) */
export async function checkReportsStopped(deps: AlertsDeps & { log?: Logger }): Promise<number> {
  const rows = await domainsWithReports(deps);
  const thresholdsByOrg = new Map<string, AlertThresholds>();
  let raised = 0;
  for (const row of rows) {
    try {
      let thresholds = thresholdsByOrg.get(row.orgId);
      if (!thresholds) thresholdsByOrg.set(row.orgId, (thresholds = (await thresholdsOf(deps, row.orgId)).thresholds));
      const current = reportsStoppedConditions({ domain: row.name, lastReportAt: row.lastReportAt, now: deps.now(), thresholds });
      raised += (await recordEvents(deps, row.orgId, current, { scope: reportConditionScope(row.name, ["reports.stopped"]) })).length;
    } catch (error) {
      deps.log?.error("report_events_failed", { domainId: row.id, error: String(error) });
    }
  }
  return raised;
}

/** Runs checkReportsStopped hourly on one node of the cluster (a lease), the first time a minute after start. */
export function startReportWatch(deps: AlertsDeps & { log?: Logger; onEvents?: () => void }): { stop(): Promise<void> } {
  return periodic({
    everyMs: 600_000,
    firstAfterMs: 60_000,
    run: async () => {
      if (!(await claimLease(deps.store, "alerts:reports-stopped", 3_540, deps.now()))) return;
      if ((await checkReportsStopped(deps)) > 0) deps.onEvents?.();
    },
    onError: (error) => deps.log?.error("report_events_failed", { error: String(error) }),
  });
}
