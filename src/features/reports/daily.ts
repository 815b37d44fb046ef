/**
 * Reads of the daily roll-ups (daily_domain_stats, daily_sender_stats) that other features
 * ask the reports feature for: trends over a range of days, the top sources of a range, and
 * one domain's figures for report alerts. Days are UTC days since 1970-01-01 (a report counts
 * on the day its period begins); sums go through Number(): PostgreSQL returns them as strings.
 */
import { and, between, eq, gte, inArray, lt, lte, sql, sum } from "drizzle-orm";
import { inChunks, IP_CHUNK } from "../../db/id-set";
import { byCodeUnit, greaterText } from "../../lib/order";
import type { OrgContext } from "../../http/access";
import type { WithStore } from "../auth/sessions";
import { windowSums } from "./read-cache";

const total = (column: Parameters<typeof sum>[0]) => sum(column).mapWith(Number);

export interface DayTotals {
  day: number;
  messages: number;
  passed: number;
  quarantined: number;
  rejected: number;
  spfAligned: number;
  dkimAligned: number;
}

/** The organisation's (or one domain's) totals per UTC day in [fromDay, toDay]; days without reports are absent. */
export async function dailyTotals(ctx: WithStore, orgId: string, range: { domainId: string | null; fromDay: number; toDay: number }): Promise<DayTotals[]> {
  const d = ctx.store.t.dailyDomainStats;
  const rows = await ctx.store.db
    .select({
      day: d.day,
      messages: total(d.messages),
      passed: total(d.passed),
      quarantined: total(d.quarantined),
      rejected: total(d.rejected),
      spfAligned: total(d.spfAligned),
      dkimAligned: total(d.dkimAligned),
    })
    .from(d)
    .where(and(eq(d.orgId, orgId), range.domainId ? eq(d.domainId, range.domainId) : undefined, between(d.day, range.fromDay, range.toDay)))
    .groupBy(d.day);
  return rows.map((r) => ({ ...r, day: Number(r.day) }));
}

export interface SourceTotals extends Omit<DayTotals, "day"> {
  sourceIp: string;
  country: string | null;
}

/**
 * The `limit` keys of `items` with the greatest `total`, greatest first (ties by key in
 * code-unit order): the cut is found on the numbers alone, and only the keys that reach it are sorted.
 */
export function topByTotal<T>(items: ReadonlyMap<string, T>, total: (item: T) => number, limit: number): string[] {
  if (limit <= 0 || !items.size) return [];
  const totals = new Float64Array(items.size);
  let i = 0;
  for (const item of items.values()) totals[i++] = total(item);
  const least = totals.sort()[Math.max(0, totals.length - limit)]!;
  const reaching: [string, number][] = [];
  for (const [key, item] of items) {
    const t = total(item);
    if (t >= least) reaching.push([key, t]);
  }
  return reaching
    .sort((a, b) => b[1] - a[1] || byCodeUnit(a[0], b[0]))
    .slice(0, limit)
    .map(([key]) => key);
}

/**
 * The sending IPs with the most messages in [fromDay, toDay] of the caller's organization, most
 * first (ties by address). The messages per address of the range's settled days are kept while
 * they hold (read-cache.ts, windowSums), those of its last days read afresh: the roll-up rows are
 * stepped through once, address and messages only (`store.eachRow`), and summed per IP here,
 * cheaper than SQL's GROUP BY and ORDER BY over every address-day (two temporary B-trees) on
 * SQLite; PostgreSQL sums them per address in a hash aggregate, which costs less than handing
 * every address-day to its driver. Only the `limit` addresses shown are then read whole, their
 * days on the (org_id, source_ip, day) index.
 */
export async function topSourcesBetween(ctx: OrgContext, range: { domainId: string | null; fromDay: number; toDay: number; limit: number }): Promise<SourceTotals[]> {
  const window = senderDaysOf(ctx.actor.orgId, range);
  // the messages per address: the settled days' sums kept while they hold, the last days' read afresh (read-cache.ts)
  const messages = await windowSums(ctx, `top-sources\n${range.domainId ?? ""}`, range, (fromDay, toDay) => messagesPerIp(ctx, { domainId: range.domainId, fromDay, toDay }), addedMessages, (part) => part.size);
  const top = topByTotal(messages, (m) => m, range.limit);
  if (!top.length) return [];
  // on (org_id, source_ip, day): SQLite's statistics, averaged over all organizations, could
  // otherwise have it walk the organization's whole window on the primary key again
  const byIp = ctx.store.dialect === "sqlite" ? sql`INDEXED BY daily_sender_stats_org_ip_idx` : sql``;
  const days = await inChunks(top, IP_CHUNK, (chunk) =>
    ctx.store.tuples<[string, string | null, ...(number | string)[]]>(sql`
      SELECT s.source_ip AS "sourceIp", s.country AS "country", s.messages AS "messages", s.passed AS "passed", s.quarantined AS "quarantined",
             s.rejected AS "rejected", s.spf_aligned AS "spfAligned", s.dkim_aligned AS "dkimAligned"
      FROM daily_sender_stats s ${byIp}
      WHERE ${window} AND s.source_ip IN (${sql.join(chunk.map((ip) => sql`${ip}`), sql`, `)})`),
  );
  const sums = new Map<string, SourceTotals>();
  for (const r of days) {
    const cur = sums.get(r[0]);
    if (!cur) {
      sums.set(r[0], { sourceIp: r[0], country: r[1] ?? null, messages: Number(r[2]), passed: Number(r[3]), quarantined: Number(r[4]), rejected: Number(r[5]), spfAligned: Number(r[6]), dkimAligned: Number(r[7]) });
      continue;
    }
    cur.country = greaterText(cur.country, r[1]);
    cur.messages += Number(r[2]);
    cur.passed += Number(r[3]);
    cur.quarantined += Number(r[4]);
    cur.rejected += Number(r[5]);
    cur.spfAligned += Number(r[6]);
    cur.dkimAligned += Number(r[7]);
  }
  return top.map((ip) => sums.get(ip)!);
}

/** The condition on daily_sender_stats `s` of the organization's days `fromDay`…`toDay`, of one domain or all. */
const senderDaysOf = (orgId: string, range: { domainId: string | null; fromDay: number; toDay: number }) =>
  sql`s.org_id = ${orgId} ${range.domainId ? sql`AND s.domain_id = ${range.domainId}` : sql``} AND s.day >= ${range.fromDay} AND s.day <= ${range.toDay}`;

/** The messages of each sending IP in [fromDay, toDay] (see topSourcesBetween). */
async function messagesPerIp(ctx: OrgContext, range: { domainId: string | null; fromDay: number; toDay: number }): Promise<Map<string, number>> {
  const window = senderDaysOf(ctx.actor.orgId, range);
  // PostgreSQL sums per address itself (a hash aggregate, no sort): sending every address-day
  // to the driver and decoding it cost more than the read (the 2 M-record bench's largest
  // 30-day window: 50,569 rows, about 24 ms of the server's CPU). In float8 as the sum here:
  // exact below 2^53, and PostgreSQL's bigint SUM (numeric) costs several times more
  const perIp = ctx.store.dialect === "postgres" ? sql`SUM(s.messages::float8)` : sql`s.messages`;
  const messages = new Map<string, number>();
  await ctx.store.eachRow<{ sourceIp: string; messages: number | string }>(
    sql`SELECT s.source_ip AS "sourceIp", ${perIp} AS "messages" FROM daily_sender_stats s WHERE ${window}${ctx.store.dialect === "postgres" ? sql` GROUP BY s.source_ip` : sql``}`,
    (r) => {
      const had = messages.get(r.sourceIp);
      messages.set(r.sourceIp, had === undefined ? Number(r.messages) : had + Number(r.messages));
    },
  );
  return messages;
}

/** The messages per IP of two parts of a window, changing neither. */
function addedMessages(settled: Map<string, number>, recent: Map<string, number>): Map<string, number> {
  const merged = new Map(settled);
  for (const [ip, n] of recent) merged.set(ip, (merged.get(ip) ?? 0) + n);
  return merged;
}

export interface DomainRollupFigures {
  /** the latest day with data */
  lastDay: number;
  /** per-day totals of the last day and the 7 before it */
  days: { day: number; messages: number; passed: number }[];
  /** sources first seen within a window that fail in volume there, with their totals in it (newFailingSources) */
  sources: { sourceIp: string; firstDay: number; messages: number; passed: number }[];
}

/** The latest day with data of one domain, and the per-day totals of that day and the 7 before it; null without roll-ups. */
export async function domainDayFigures(ctx: WithStore, orgId: string, domainId: string): Promise<Omit<DomainRollupFigures, "sources"> | null> {
  const { store } = ctx;
  const d = store.t.dailyDomainStats;
  const [last] = await store.db
    .select({ day: sql<number>`max(${d.day})`.mapWith(Number) })
    .from(d)
    .where(and(eq(d.orgId, orgId), eq(d.domainId, domainId)));
  const lastDay = last?.day ?? null;
  if (lastDay === null || Number.isNaN(lastDay)) return null;
  const days = await store.db
    .select({ day: d.day, messages: d.messages, passed: d.passed })
    .from(d)
    .where(and(eq(d.orgId, orgId), eq(d.domainId, domainId), gte(d.day, lastDay - 7), lte(d.day, lastDay)));
  return { lastDay, days: days.map((r) => ({ day: Number(r.day), messages: Number(r.messages), passed: Number(r.passed) })) };
}

/** source addresses asked about per statement (well under PostgreSQL's 65,535 parameters) */
const IP_BATCH = 1000;

/**
 * One domain's sources first seen on a day in [fromDay, toDay] (none of its rows before
 * fromDay) that sent more than `minFailed` messages failing DMARC, with their totals: what the
 * new-failing-source alert needs, after every stored report. Reads the window's rows by the
 * (org, domain, day) index and, for the few sources failing in volume there, whether any
 * row of theirs is older (the (org, source, day) index): never the domain's whole source history.
 */
export async function newFailingSources(
  ctx: WithStore,
  orgId: string,
  domainId: string,
  window: { fromDay: number; toDay: number; minFailed: number },
): Promise<DomainRollupFigures["sources"]> {
  const { store } = ctx;
  const s = store.t.dailySenderStats;
  const inWindow = await store.db
    .select({
      sourceIp: s.sourceIp,
      firstDay: sql<number>`min(${s.day})`.mapWith(Number),
      messages: sql<number>`sum(${s.messages})`.mapWith(Number),
      passed: sql<number>`sum(${s.passed})`.mapWith(Number),
    })
    .from(s)
    .where(and(eq(s.orgId, orgId), eq(s.domainId, domainId), gte(s.day, window.fromDay), lte(s.day, window.toDay)))
    .groupBy(s.sourceIp)
    .having(sql`sum(${s.messages}) - sum(${s.passed}) > ${window.minFailed}`);
  if (!inWindow.length) return [];
  const seenBefore = new Set<string>();
  for (let i = 0; i < inWindow.length; i += IP_BATCH) {
    const ips = inWindow.slice(i, i + IP_BATCH).map((r) => r.sourceIp);
    // by (org, source, day): left to itself SQLite may walk the organization's whole history on
    // the primary key instead (it covers every column named), so it is told which index to use
    const from = store.dialect === "sqlite" ? sql`daily_sender_stats INDEXED BY daily_sender_stats_org_ip_idx` : sql`daily_sender_stats`;
    const rows = await store.rows<{ sourceIp: string }>(
      sql`SELECT DISTINCT ${s.sourceIp} AS "sourceIp" FROM ${from} WHERE ${and(eq(s.orgId, orgId), inArray(s.sourceIp, ips), lt(s.day, window.fromDay), eq(s.domainId, domainId))}`,
    );
    for (const r of rows) seenBefore.add(r.sourceIp);
  }
  return inWindow
    .filter((r) => !seenBefore.has(r.sourceIp))
    .map((r) => ({ sourceIp: r.sourceIp, firstDay: Number(r.firstDay), messages: Number(r.messages), passed: Number(r.passed) }));
}
