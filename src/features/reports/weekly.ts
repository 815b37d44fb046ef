/**
 * Figures over a span of whole UTC days from the daily roll-ups (daily_domain_stats,
 * daily_sender_stats) — never the raw records — for the weekly digest. Days are UTC days since
 * 1970-01-01, `from` included and `to` excluded, under the roll-ups' rule (a report counts on
 * the day its period begins). Sums go through Number(): PostgreSQL returns them as strings.
 */
import { and, desc, gte, inArray, isNotNull, lt, sql } from "drizzle-orm";
import type { ServiceContext } from "../../http/access";

type Ctx = Pick<ServiceContext, "store">;

export interface DomainDayTotals {
  domainId: string;
  messages: number;
  passed: number;
}

/** Messages and DMARC passes per domain of the organisations in days [from, to). */
export async function domainTotalsBetween(ctx: Ctx, orgIds: string[], fromDay: number, toDay: number): Promise<DomainDayTotals[]> {
  if (!orgIds.length) return [];
  const s = ctx.store.t.dailyDomainStats;
  const rows = await ctx.store.db
    .select({ domainId: s.domainId, messages: sql`SUM(${s.messages})`.mapWith(Number), passed: sql`SUM(${s.passed})`.mapWith(Number) })
    .from(s)
    .where(and(inArray(s.orgId, orgIds), gte(s.day, fromDay), lt(s.day, toDay)))
    .groupBy(s.domainId);
  return rows.map((r) => ({ domainId: r.domainId, messages: Number(r.messages ?? 0), passed: Number(r.passed ?? 0) }));
}

export interface FailingSourceTotals {
  domainId: string;
  sourceIp: string;
  /** messages that failed DMARC */
  failed: number;
}

/**
 * The sources that sent the most DMARC-failing mail as the organisations' domains in days [from, to):
 * only rows with failing mail count (first_failed_at set), read from the failing-rows index alone.
 */
export async function topFailingSourcesBetween(ctx: Ctx, orgIds: string[], fromDay: number, toDay: number, limit: number): Promise<FailingSourceTotals[]> {
  if (!orgIds.length) return [];
  const s = ctx.store.t.dailySenderStats;
  const failed = sql<number>`SUM(${s.messages} - ${s.passed})`.mapWith(Number);
  const rows = await ctx.store.db
    .select({ domainId: s.domainId, sourceIp: s.sourceIp, failed })
    .from(s)
    .where(and(inArray(s.orgId, orgIds), gte(s.day, fromDay), lt(s.day, toDay), isNotNull(s.firstFailedAt)))
    .groupBy(s.domainId, s.sourceIp)
    .having(sql`SUM(${s.messages} - ${s.passed}) > 0`)
    .orderBy(desc(failed), s.sourceIp)
    .limit(limit);
  return rows.map((r) => ({ domainId: r.domainId, sourceIp: r.sourceIp, failed: Number(r.failed) }));
}
