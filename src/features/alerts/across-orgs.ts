/**
 * Alert figures of several organizations at once, for views across organizations (the MSP
 * portfolio): one statement over the given ids, never one per organization.
 */
import { and, count, gte, ne } from "drizzle-orm";
import { oneOf } from "../../db/id-set";
import type { WithStore } from "../auth/sessions";

/** Events of the feed (test events left out) that occurred from `from` on, counted per organization. */
export async function eventCountsSince({ store }: WithStore, orgIds: string[], from: Date): Promise<{ orgId: string; n: number }[]> {
  if (!orgIds.length) return [];
  const e = store.t.orgEvents;
  const rows = await store.db
    .select({ orgId: e.orgId, n: count() })
    .from(e)
    .where(and(oneOf(store.dialect, e.orgId, orgIds), ne(e.type, "test"), gte(e.occurredAt, from)))
    .groupBy(e.orgId);
  return rows.map((r) => ({ orgId: r.orgId, n: Number(r.n) }));
}
