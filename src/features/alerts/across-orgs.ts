/**
 * Alert figures of several organizations at once, for views across organizations (the MSP
 * portfolio): one statement over the given ids, never one per organization.
 */
import { sql } from "drizzle-orm";
import { oneOf } from "../../db/id-set";
import type { WithStore } from "../auth/sessions";

/** Events of the feed (tests and summaries of held alerts left out) that occurred from `from` on, counted per organization. */
export async function eventCountsSince({ store }: WithStore, orgIds: string[], from: Date): Promise<{ orgId: string; n: number }[]> {
  if (!orgIds.length) return [];
  // rows read as arrays (one per client)
  const rows = await store.tuples<[string, number | string]>(
    sql`SELECT org_id, COUNT(*) FROM org_events WHERE ${oneOf(store.dialect, sql`org_id`, orgIds)} AND type NOT IN ('test', 'alerts.summary') AND occurred_at >= ${Math.floor(from.getTime() / 1000)} GROUP BY org_id`,
  );
  return rows.map(([orgId, n]) => ({ orgId, n: Number(n) }));
}
