/** DMARC-failing messages by country, from the daily source roll-ups (the threat map). */
import { and, eq, gte, lte, sql } from "drizzle-orm";
import type { ServiceContext } from "../../http/access";

/**
 * Failing messages (messages − DMARC-passing) per ISO country code over the UTC days
 * `fromDay`…`toDay` (days since 1970-01-01, both included), and those from IPs that could not
 * be located. Reads `daily_source_stats` on its (org_id, day) index.
 */
export async function failingByCountry(ctx: Pick<ServiceContext, "store">, orgId: string, fromDay: number, toDay: number): Promise<{ counts: Record<string, number>; unlocated: number }> {
  const s = ctx.store.t.dailySourceStats;
  const failing = sql<number>`sum(${s.messages} - ${s.passed})`.mapWith(Number);
  const rows = await ctx.store.db
    .select({ country: s.country, failing })
    .from(s)
    .where(and(eq(s.orgId, orgId), gte(s.day, fromDay), lte(s.day, toDay)))
    .groupBy(s.country);
  const counts: Record<string, number> = {};
  let unlocated = 0;
  for (const r of rows) {
    if (!(r.failing > 0)) continue;
    const code = r.country?.toUpperCase();
    if (code && /^[A-Z]{2}$/.test(code)) counts[code] = (counts[code] ?? 0) + r.failing;
    else unlocated += r.failing;
  }
  return { counts, unlocated };
}
