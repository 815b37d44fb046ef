/**
 * The dashboard's numbers, the derived tasks and the last day's threats, always within one
 * organisation. The figures come from the features that own them (domains, reports, settings);
 * the rules (what is a task, how bad is a source) are pure functions in src/lib/tasks.ts and
 * src/lib/threat-level.ts.
 */
import type { OrgContext } from "../../http/access";
import { deriveTasks, REPORT_WINDOW_DAYS, statusSince, type DomainState, type Task } from "../../lib/tasks";
import { senderKeyOfRow } from "../../lib/senders";
import { currentDomainState, markedIpsOf, ruaAddressOf, withMarks } from "../../lib/task-inputs";
import { threatLevel } from "../../lib/threat-level";
import { addDays, parseUtcDate, utcDate } from "../../lib/trends";
import { listDomains, statusHistoryOf } from "../domains/service";
import { failingByCountry } from "../reports/failing-countries";
import { keptRead } from "../reports/read-cache";
import { nameUnnamedSources } from "../reports/reverse-dns";
import { utcDay } from "../reports/rollups";
import { senderMarks } from "../reports/sender-marks";
import { failingMailByService, failingSources, lastReportByDomain, messagesProcessedBetween, reportsProcessedBetween, trafficByDomain } from "../reports/stats";
import { getSettings } from "../settings/service";
import { reportDestination } from "../mailin/destination";
import { MAX_THREATS, STATS_PERIOD_DAYS, THREAT_DAYS, THREAT_MAP_DAYS, type DashboardStats, type IpThreat, type ThreatCountries, type ThreatMapRange } from "./contract";

const DAY_MS = 86_400_000;
const ago = (at: Date, ms: number) => new Date(at.getTime() - ms);
const dateOrNull = (iso: string | null) => (iso ? new Date(iso) : null);

/**
 * The organisation's domains as they stood at `at`: the domain rows themselves for now, the
 * DNS check history for a past moment (statuses of the last check before it).
 */
async function domainStatesAt(ctx: OrgContext, at: Date, current: boolean): Promise<DomainState[]> {
  const orgId = ctx.actor.orgId;
  const rows = (await listDomains(ctx)).filter((d) => new Date(d.createdAt).getTime() <= at.getTime());
  const history = await statusHistoryOf(ctx, orgId, at);
  const pastReports = current ? null : await lastReportByDomain(ctx, orgId, at);
  return rows.map((row) => {
    const rowsOf = history.get(row.id) ?? [];
    if (current) return currentDomainState({ ...row, createdAt: new Date(row.createdAt), lastReportAt: dateOrNull(row.lastReportAt) }, rowsOf);
    const last = rowsOf.at(-1);
    return {
      id: row.id,
      name: row.name,
      dmarcPolicy: last?.dmarcPolicy ?? null,
      spfStatus: last?.spfStatus ?? null,
      dkimStatus: last?.dkimStatus ?? null,
      dmarcRecord: last?.dmarcRecord ?? null,
      createdAt: new Date(row.createdAt),
      lastReportAt: pastReports!.get(row.id) ?? null,
      since: statusSince(rowsOf),
    };
  });
}

/** Settings → DMARC rua when set, else this server's report address for the organisation (if it receives mail). */
async function ruaAddress(ctx: OrgContext, fallback: string | null): Promise<string | null> {
  return ruaAddressOf((await getSettings(ctx)).dmarcRua, fallback);
}

/** The organisation's tasks as they stand at `at` (now, or a past moment for comparisons). */
export async function tasksAt(ctx: OrgContext, at: Date, current = true, fallbackRua: string | null = null): Promise<Task[]> {
  const orgId = ctx.actor.orgId;
  const windowStart = ago(at, REPORT_WINDOW_DAYS * DAY_MS);
  // the user's marks as they stand now decide which failing senders are theirs (an IP marked
  // one by one stays its own sender; the other unnamed IPs are summed per domain)
  const marks = await senderMarks(ctx);
  const markedIps = markedIpsOf(marks);
  const [domains, failing, traffic, rua, destination] = await Promise.all([
    domainStatesAt(ctx, at, current),
    // the window's failing mail, kept while the organization's roll-ups, names and marks stay as they are (reports/read-cache.ts)
    keptRead(ctx, `failing-mail\n${utcDay(windowStart)}\n${utcDay(at)}\n${markedIps.join(" ")}`, () => failingMailByService(ctx, windowStart, at, markedIps)),
    trafficByDomain(ctx, orgId, windowStart, at),
    ruaAddress(ctx, fallbackRua),
    reportDestination(ctx),
  ]);
  return deriveTasks({ now: at, domains, failing: withMarks(failing, marks), traffic, ruaAddress: rua, destination });
}

export function listTasks(ctx: OrgContext, fallbackRua: string | null = null): Promise<Task[]> {
  return tasksAt(ctx, ctx.now(), true, fallbackRua);
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

export async function dashboardStats(ctx: OrgContext): Promise<DashboardStats> {
  const orgId = ctx.actor.orgId;
  const now = ctx.now();
  const periodStart = ago(now, STATS_PERIOD_DAYS * DAY_MS);
  const domains = await listDomains(ctx);
  const totalDomains = domains.length;
  const dmarcProtected = domains.filter((d) => d.dmarcPolicy === "quarantine" || d.dmarcPolicy === "reject").length;
  const [activeIssues, issuesBefore, reportsNow, reportsBefore, traffic] = await Promise.all([
    tasksAt(ctx, now, true).then((tasks) => tasks.length),
    tasksAt(ctx, periodStart, false).then((tasks) => tasks.length),
    reportsProcessedBetween(ctx, orgId, periodStart, now),
    reportsProcessedBetween(ctx, orgId, ago(periodStart, STATS_PERIOD_DAYS * DAY_MS), periodStart),
    messagesProcessedBetween(ctx, orgId, periodStart, now),
  ]);
  return {
    totalDomains,
    dmarcProtected,
    protectionRate: totalDomains ? Math.round((dmarcProtected / totalDomains) * 100) : 0,
    domainGrowth: signed(domains.filter((d) => new Date(d.createdAt).getTime() > periodStart.getTime()).length),
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
 * Source IPs whose mail failed DMARC in the last 24 hours, read from the daily roll-ups as the
 * reports whose period began today (UTC) or on the THREAT_DAYS − 1 days before (daily reports
 * arrive about a day after their period, late ones a day later).
 */
export async function listThreats(ctx: OrgContext): Promise<IpThreat[]> {
  const today = utcDay(ctx.now());
  const fromDay = today - (THREAT_DAYS - 1);
  // kept while the organization's roll-ups, names and marks stay as they are (reports/read-cache.ts)
  return keptRead(ctx, `threats\n${fromDay}\n${today}`, () => threatsBetween(ctx, fromDay, today));
}

async function threatsBetween(ctx: OrgContext, fromDay: number, toDay: number): Promise<IpThreat[]> {
  const [found, marks] = await Promise.all([failingSources(ctx, ctx.actor.orgId, { fromDay, toDay, limit: MAX_THREATS }), senderMarks(ctx)]);
  // addresses with no PTR name yet are looked up in the background, the most attempts first: named, the list read again shows them
  nameUnnamedSources(ctx, ctx.actor.orgId, found.filter((r) => r.ptr === null).map((r) => r.ip));
  // a source of a sender the user approved is not a threat: its failures are a set-up task
  const rows = found.map((r) => ({ ...r, mark: marks.get(senderKeyOfRow({ service: r.service, baseDomain: r.baseDomain, sourceIp: r.ip })) ?? null })).filter((r) => r.mark !== "approved");
  return rows.map((r) => ({
    ipAddress: r.ip,
    country: countryName(r.country),
    countryCode: r.country ? r.country.toUpperCase() : null,
    city: r.city ?? "",
    attemptCount: r.attempts,
    deliveredCount: r.delivered,
    threatLevel: threatLevel({ attempts: r.attempts, delivered: r.delivered, knownService: r.service, mark: r.mark }),
    lastSeenAt: r.lastSeenAt.toISOString(),
    ptr: r.ptr,
    service: r.service,
    domains: r.domains,
  }));
}

/**
 * Failing messages by country for the threat map, from the daily source roll-ups: "24h" reads
 * today's and yesterday's UTC day rows (the closest roll-up to the last 24 hours: daily reports
 * arrive about a day after the period they cover), "7d" and "30d" the last 7 and 30 UTC days.
 */
export async function threatCountries(ctx: OrgContext, range: ThreatMapRange): Promise<ThreatCountries> {
  const to = utcDate(ctx.now());
  const from = addDays(to, -(THREAT_MAP_DAYS[range] - 1));
  const day = (date: string) => Math.floor(parseUtcDate(date) / 86_400_000);
  const { counts, unlocated } = await failingByCountry(ctx, ctx.actor.orgId, day(from), day(to));
  return { range, from, to, counts, unlocated };
}
