/**
 * Trends over time, read from the daily roll-ups the report writer keeps (never from raw
 * records): the organisation's (or one domain's) messages per UTC day, and its top sources.
 */
import type { OrgContext } from "../../http/access";
import { NotFoundError } from "../../http/errors";
import { fillTrendDays, lastDays, parseUtcDate, utcDate, type TrendSeries } from "../../lib/trends";
import { domainNamesOf } from "../domains/service";
import { dailyTotals, topSourcesBetween } from "../reports/daily";
import { keptRead } from "../reports/read-cache";
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
  if (!found) throw new NotFoundError("domain must be one of this organization's domains.");
  return found.id;
}

/** GET /api/trends: one entry per UTC day of the range, zeros included, oldest first. */
export async function trendSeries(ctx: OrgContext, query: TrendsQuery): Promise<TrendSeries> {
  const { from, to } = queryRange(ctx, query);
  const domainId = query.domain ? await domainIdByName(ctx, query.domain) : null;
  const rows = await dailyTotals(ctx, ctx.actor.orgId, { domainId, fromDay: dayNumber(from), toDay: dayNumber(to) });
  return {
    from,
    to,
    days: fillTrendDays(
      from,
      to,
      rows.map((r) => ({ ...r, date: utcDate(r.day * DAY_MS), failed: r.messages - r.passed })),
    ),
  };
}

/** GET /api/trends/sources: the sending IPs with the most messages in the range. */
export async function topSources(ctx: OrgContext, query: TopSourcesQuery): Promise<TopSources> {
  const { from, to } = queryRange(ctx, query);
  const domainId = query.domain ? await domainIdByName(ctx, query.domain) : null;
  const range = { domainId, fromDay: dayNumber(from), toDay: dayNumber(to), limit: query.limit };
  // kept while the organization's roll-ups stay as they are (reports/read-cache.ts)
  const rows = await keptRead(ctx, `top-sources\n${range.fromDay}\n${range.toDay}\n${domainId ?? ""}\n${range.limit}`, () => topSourcesBetween(ctx, range));
  return { from, to, sources: rows.map((r) => ({ ...r, failed: r.messages - r.passed })) };
}
