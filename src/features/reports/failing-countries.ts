/** DMARC-failing messages by country, from the daily country roll-ups (the threat map). */
import { sql } from "drizzle-orm";
import type { ServiceContext } from "../../http/access";

/**
 * Failing messages (messages − DMARC-passing) per ISO country code over the UTC days
 * `fromDay`…`toDay` (days since 1970-01-01, both included), and those from IPs that could not
 * be located. Reads `daily_country_stats` on its primary key (org_id, day, …): a few rows per
 * domain and day, not one per source.
 */
export async function failingByCountry(ctx: Pick<ServiceContext, "store">, orgId: string, fromDay: number, toDay: number): Promise<{ counts: Record<string, number>; unlocated: number }> {
  const rows = await ctx.store.rows<{ country: string; failing: number | string }>(sql`
    SELECT c.country AS "country", SUM(c.messages - c.passed) AS "failing"
    FROM daily_country_stats c
    WHERE c.org_id = ${orgId} AND c.day >= ${fromDay} AND c.day <= ${toDay}
    GROUP BY c.country`);
  const counts: Record<string, number> = {};
  let unlocated = 0;
  for (const r of rows) {
    const failing = Number(r.failing);
    if (!(failing > 0)) continue;
    const code = r.country?.toUpperCase();
    if (code && /^[A-Z]{2}$/.test(code)) counts[code] = (counts[code] ?? 0) + failing;
    else unlocated += failing;
  }
  return { counts, unlocated };
}
