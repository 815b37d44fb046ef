/**
 * Report figures of several organizations at once, for views across organizations (the MSP
 * portfolio): one statement over the given ids (grouped by org_id, through the org-leading
 * indexes), never one per organization. Each is the set-based form of the verb an
 * organization's own screen answers with.
 */
import { inArray, sql } from "drizzle-orm";
import type { WithStore } from "../auth/sessions";

const secs = (d: Date) => Math.floor(d.getTime() / 1000);
const idList = (ids: string[]) => sql.join(ids.map((id) => sql`${id}`), sql`, `);

/** Messages and DMARC passes of the reports processed in (monthAgo, now], and of those in (weekAgo, now], per organization (messagesProcessedBetween's way). */
export async function trafficOfOrgs({ store }: WithStore, orgIds: string[], window: { weekAgo: Date; monthAgo: Date; now: Date }) {
  if (!orgIds.length) return [];
  const { weekAgo, monthAgo, now } = window;
  const rows = await store.rows<{ orgId: string; messages7: number | string | null; passing7: number | string | null; messages30: number | string | null; passing30: number | string | null }>(sql`
    SELECT org_id AS "orgId",
           SUM(CASE WHEN processed_at > ${secs(weekAgo)} THEN message_count ELSE 0 END) AS "messages7",
           SUM(CASE WHEN processed_at > ${secs(weekAgo)} THEN pass_count ELSE 0 END) AS "passing7",
           SUM(message_count) AS "messages30", SUM(pass_count) AS "passing30"
    FROM aggregate_reports WHERE org_id IN (${idList(orgIds)}) AND processed_at > ${secs(monthAgo)} AND processed_at <= ${secs(now)}
    GROUP BY org_id`);
  return rows.map((r) => ({
    orgId: r.orgId,
    week: { messages: Number(r.messages7 ?? 0), passing: Number(r.passing7 ?? 0) },
    month: { messages: Number(r.messages30 ?? 0), passing: Number(r.passing30 ?? 0) },
  }));
}

/** The source addresses with failing mail on the UTC days [fromDay, toDay], at most `limit` per organization (most failing first, failingSources' way), with their PTR names. */
export async function failingSourcesOfOrgs({ store }: WithStore, orgIds: string[], window: { fromDay: number; toDay: number; limit: number }) {
  if (!orgIds.length) return [];
  return store.rows<{ orgId: string; ip: string; service: string | null; baseDomain: string | null }>(sql`
    SELECT g.org_id AS "orgId", g.source_ip AS "ip", n.service AS "service", n.base_domain AS "baseDomain"
    FROM (SELECT s.org_id, s.source_ip, ROW_NUMBER() OVER (PARTITION BY s.org_id ORDER BY SUM(s.messages - s.passed) DESC, s.source_ip) AS rank
          FROM daily_sender_stats s
          WHERE s.org_id IN (${idList(orgIds)}) AND s.day >= ${window.fromDay} AND s.day <= ${window.toDay} AND s.last_failed_at IS NOT NULL
          GROUP BY s.org_id, s.source_ip) g
    LEFT JOIN source_names n ON n.org_id = g.org_id AND n.source_ip = g.source_ip
    WHERE g.rank <= ${window.limit}`);
}

/** The sender marks (approved, not ours) of the given organizations. */
export async function senderMarksOfOrgs({ store }: WithStore, orgIds: string[]) {
  if (!orgIds.length) return [];
  const m = store.t.senderMarks;
  return store.db.select({ orgId: m.orgId, key: m.senderKey, verdict: m.verdict }).from(m).where(inArray(m.orgId, orgIds));
}
