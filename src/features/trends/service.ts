/**
 * Trends over time, read from the daily roll-ups the report writer keeps (never from raw
 * records): the organisation's (or one domain's) messages per UTC day, and its top sources.
 */
import { and, between, desc, eq, max, sql, sum } from "drizzle-orm";
import type { OrgContext } from "../../http/access";
import { NotFoundError } from "../../http/errors";
import { fillTrendDays, lastDays, parseUtcDate, utcDate, type TrendSeries } from "../../lib/trends";
import { domainNamesOf } from "../domains/service";
import type { TopSources, TopSourcesQuery, TrendsQuery } from "./contract";

const DAY_MS = 86_400_000;
/** days since 1970-01-01 of a "YYYY-MM-DD" UTC day */
const dayNumber = (date: string) => Math.round(parseUtcDate(date) / DAY_MS);

/** The UTC days a query covers: a custom from–to, or the last `days` days ending today. */
export function queryRange(ctx: OrgContext, query: Pick<TrendsQuery, "days" | "from" | "to">): { from: string; to: string } {
  return query.from && query.to ? { from: query.from, to: query.to } : lastDays(query.days, ctx.now());
}

/** The id of the organisation's domain `name`; 404 when it has no such domain. */
export async function domainIdByName(ctx: OrgContext, name: string): Promise<string> {
  const found = (await domainNamesOf(ctx, ctx.actor.orgId)).find((d) => d.name === name);
  if (!found) throw new NotFoundError("domain must be one of this organisation's domains.");
  return found.id;
}

const total = (column: Parameters<typeof sum>[0]) => sum(column).mapWith(Number);

/** GET /api/trends: one entry per UTC day of the range, zeros included, oldest first. */
export async function trendSeries(ctx: OrgContext, query: TrendsQuery): Promise<TrendSeries> {
  const { from, to } = queryRange(ctx, query);
  const domainId = query.domain ? await domainIdByName(ctx, query.domain) : null;
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
    .where(and(eq(d.orgId, ctx.actor.orgId), domainId ? eq(d.domainId, domainId) : undefined, between(d.day, dayNumber(from), dayNumber(to))))
    .groupBy(d.day);
  return {
    from,
    to,
    days: fillTrendDays(
      from,
      to,
      rows.map((r) => ({ ...r, date: utcDate(Number(r.day) * DAY_MS), failed: r.messages - r.passed })),
    ),
  };
}

/** GET /api/trends/sources: the sending IPs with the most messages in the range. */
export async function topSources(ctx: OrgContext, query: TopSourcesQuery): Promise<TopSources> {
  const { from, to } = queryRange(ctx, query);
  const domainId = query.domain ? await domainIdByName(ctx, query.domain) : null;
  const s = ctx.store.t.dailySourceStats;
  const messages = total(s.messages);
  const rows = await ctx.store.db
    .select({
      sourceIp: s.sourceIp,
      country: max(s.country),
      messages,
      passed: total(s.passed),
      quarantined: total(s.quarantined),
      rejected: total(s.rejected),
      spfAligned: total(s.spfAligned),
      dkimAligned: total(s.dkimAligned),
    })
    .from(s)
    .where(and(eq(s.orgId, ctx.actor.orgId), domainId ? eq(s.domainId, domainId) : undefined, between(s.day, dayNumber(from), dayNumber(to))))
    .groupBy(s.sourceIp)
    .orderBy(desc(sql`${messages}`), s.sourceIp)
    .limit(query.limit);
  return { from, to, sources: rows.map((r) => ({ ...r, country: r.country ?? null, failed: r.messages - r.passed })) };
}
