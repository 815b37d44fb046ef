/**
 * GET /api/senders/:key — one sender of the organisation over the last N UTC days: its IPs
 * (country, PTR, messages, alignment), its daily trend, a few recent records and its verdict.
 *
 * Reads: the sender's addresses (source_names by service or base domain, or the one IP), their
 * days of the daily sender roll-ups on (org_id, source_ip, day), read once: summed per IP and
 * named from source_names (the sender's IPs), and summed per day (its daily trend); the samples
 * are the newest few records of those IPs.
 */
import { and, desc, eq, gte, inArray, lt, sql } from "drizzle-orm";
import type { OrgContext } from "../../http/access";
import { parseSenderKey, percentOf, senderKeyOfRow, summariseSenders, type SenderKind } from "../../lib/senders";
import { addDays, fillTrendDays, utcDate, type TrendDay } from "../../lib/trends";
import { MAX_SENDER_IPS, SENDER_SAMPLES, type SenderDetail, type SenderIpView } from "./contract";
import { canonicalSenderKey, senderMarkOf } from "./sender-marks";
import { keptRead } from "./read-cache";
import { senderRowsBetween, type SenderDayTuple } from "./senders-view";
import { recordViewsOf } from "./service";

const DAY = 86_400;

/**
 * The addresses that may belong to one sender: a service's and a base domain's from
 * source_names (on its (org_id, service) index, or the organisation's names), an IP itself.
 * The Senders view's grouping (senderKeyOfRow) still decides on each row.
 */
async function senderIps(ctx: OrgContext, kind: SenderKind, sender: string): Promise<string[]> {
  if (kind === "ip") return [sender];
  const orgId = ctx.actor.orgId;
  const which = kind === "service" ? sql`n.service = ${sender}` : sql`n.service IS NULL AND lower(n.base_domain) = ${sender}`;
  const rows = await ctx.store.rows<{ ip: string }>(sql`SELECT n.source_ip AS "ip" FROM source_names n WHERE n.org_id = ${orgId} AND ${which}`);
  return rows.map((r) => r.ip);
}

export async function getSender(ctx: OrgContext, rawKey: string, days: number): Promise<SenderDetail> {
  const key = canonicalSenderKey(rawKey);
  const { kind, sender } = parseSenderKey(key)!;
  const to = utcDate(ctx.now());
  const from = addDays(to, -(days - 1));
  const fromDay = Math.floor(Date.parse(`${from}T00:00:00Z`) / 1000 / DAY);
  const toDay = fromDay + days - 1;
  // kept while the organization's roll-ups, records, names and marks stay as they are (read-cache.ts)
  return keptRead(ctx, `sender\n${key}\n${fromDay}\n${toDay}`, () => senderDetail(ctx, { key, kind, sender, days, from, to, fromDay, toDay }));
}

/** The sender page of `key` over the UTC days `fromDay`…`toDay` (`from`…`to`). */
async function senderDetail(
  ctx: OrgContext,
  { key, kind, sender, days, from, to, fromDay, toDay }: { key: string; kind: SenderKind; sender: string; days: number; from: string; to: string; fromDay: number; toDay: number },
): Promise<SenderDetail> {
  const orgId = ctx.actor.orgId;
  const fromSecs = fromDay * DAY;

  // the sender's addresses' roll-up rows, read once: summed per IP here, and per day for the trend
  const dayRows: SenderDayTuple[] = [];
  const rows = await senderRowsBetween(ctx, { fromDay, toDay, ips: await senderIps(ctx, kind, sender) }, dayRows);
  const senderRows = rows.filter((r) => senderKeyOfRow(r) === key);

  const mark = await senderMarkOf(ctx, key);
  const summary = summariseSenders(senderRows, 1, new Map(mark ? [[key, mark.verdict]] : [])).find((s) => s.key === key) ?? null;

  // per IP: rows of one IP differ only by policy domain or country (relocated between reports)
  const byIp = new Map<string, { ip: string; countries: Map<string, number>; ptr: string | null; messages: number; passing: number; spf: number; dkim: number; lastSeen: number }>();
  for (const r of senderRows) {
    let ip = byIp.get(r.sourceIp);
    if (!ip) byIp.set(r.sourceIp, (ip = { ip: r.sourceIp, countries: new Map(), ptr: null, messages: 0, passing: 0, spf: 0, dkim: 0, lastSeen: 0 }));
    ip.ptr ??= r.ptr;
    ip.messages += r.messages;
    ip.passing += r.passing;
    ip.spf += r.spfAligned;
    ip.dkim += r.dkimAligned;
    ip.lastSeen = Math.max(ip.lastSeen, r.lastSeen);
    if (r.country) ip.countries.set(r.country.toUpperCase(), (ip.countries.get(r.country.toUpperCase()) ?? 0) + r.messages);
  }
  const allIps = [...byIp.values()].sort((a, b) => b.messages - a.messages || a.ip.localeCompare(b.ip));
  const ips: SenderIpView[] = allIps.slice(0, MAX_SENDER_IPS).map((ip) => ({
    ip: ip.ip,
    country: [...ip.countries.entries()].sort((a, b) => b[1] - a[1])[0]?.[0] ?? null,
    ptr: ip.ptr,
    messages: ip.messages,
    passRate: percentOf(ip.passing, ip.messages),
    spfAlignedRate: percentOf(ip.spf, ip.messages),
    dkimAlignedRate: percentOf(ip.dkim, ip.messages),
    lastSeen: new Date(ip.lastSeen).toISOString(),
  }));

  // the daily trend from the same roll-up rows, of every IP of the sender
  const { aggregateRecords: rec, aggregateReports: rep } = ctx.store.t;
  const dayTotals = new Map<number, TrendDay>();
  const addresses = allIps.map((ip) => ip.ip);
  for (const r of dayRows) {
    if (!byIp.has(r[0])) continue;
    const dayNumber = Number(r[8]);
    let day = dayTotals.get(dayNumber);
    if (!day) dayTotals.set(dayNumber, (day = { date: utcDate(dayNumber * DAY * 1000), messages: 0, passed: 0, failed: 0, quarantined: 0, rejected: 0, spfAligned: 0, dkimAligned: 0 }));
    const messages = Number(r[3]);
    const passed = Number(r[4]);
    day.messages += messages;
    day.passed += passed;
    day.failed += messages - passed;
    day.quarantined += Number(r[9]);
    day.rejected += Number(r[10]);
    day.spfAligned += Number(r[5]);
    day.dkimAligned += Number(r[6]);
  }

  // the newest few records of its IPs (the most mail first, at most 500), with their auth results and the report they came in
  const sampleIps = addresses.slice(0, 500);
  const recent = sampleIps.length
    ? await ctx.store.db
        .select({ record: rec, reportId: rep.reportId, reporter: rep.reporterOrg, policyDomain: rep.policyDomain, dateBegin: rep.dateBegin, dateEnd: rep.dateEnd })
        .from(rep)
        .innerJoin(rec, and(eq(rec.orgId, rep.orgId), eq(rec.reportSeq, rep.seq)))
        .where(and(eq(rep.orgId, orgId), inArray(rec.sourceIp, sampleIps), gte(rep.dateBegin, new Date(fromSecs * 1000)), lt(rep.dateBegin, new Date((toDay + 1) * DAY * 1000))))
        .orderBy(desc(rep.dateBegin), desc(rec.id))
        .limit(SENDER_SAMPLES)
    : [];
  const views = await recordViewsOf(ctx, recent);
  const samples = recent.map((r, i) => ({
    ...views[i]!,
    reportId: r.reportId,
    reporter: r.reporter,
    policyDomain: r.policyDomain,
    dateBegin: r.dateBegin.toISOString(),
    dateEnd: r.dateEnd.toISOString(),
  }));

  return {
    key,
    kind,
    sender,
    days,
    from,
    to,
    summary,
    mark: mark?.verdict ?? null,
    markedAt: mark ? mark.markedAt.toISOString() : null,
    ips,
    ipCount: allIps.length,
    trend: { from, to, days: fillTrendDays(from, to, [...dayTotals.values()]) },
    samples,
  };
}
