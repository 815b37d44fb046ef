/**
 * Report figures of several organizations at once, for views across organizations (the MSP
 * portfolio): one statement over the given ids (grouped by org_id, through the org-leading
 * indexes), never one per organization. Each is the set-based form of the verb an
 * organization's own screen answers with.
 */
import { sql } from "drizzle-orm";
import { oneOf } from "../../db/id-set";
import type { WithStore } from "../auth/sessions";

const secs = (d: Date) => Math.floor(d.getTime() / 1000);

/** Messages and DMARC passes of the reports processed in (monthAgo, now], and of those in (weekAgo, now], per organization (messagesProcessedBetween's way). */
export async function trafficOfOrgs({ store }: WithStore, orgIds: string[], window: { weekAgo: Date; monthAgo: Date; now: Date }) {
  if (!orgIds.length) return [];
  const { weekAgo, monthAgo, now } = window;
  type Sum = number | string | null;
  const rows = await store.tuples<[string, Sum, Sum, Sum, Sum]>(sql`
    SELECT org_id,
           SUM(CASE WHEN processed_at > ${secs(weekAgo)} THEN message_count ELSE 0 END),
           SUM(CASE WHEN processed_at > ${secs(weekAgo)} THEN pass_count ELSE 0 END),
           SUM(message_count), SUM(pass_count)
    FROM aggregate_reports WHERE ${oneOf(store.dialect, sql`org_id`, orgIds)} AND processed_at > ${secs(monthAgo)} AND processed_at <= ${secs(now)}
    GROUP BY org_id`);
  return rows.map(([orgId, messages7, passing7, messages30, passing30]) => ({
    orgId,
    week: { messages: Number(messages7 ?? 0), passing: Number(passing7 ?? 0) },
    month: { messages: Number(messages30 ?? 0), passing: Number(passing30 ?? 0) },
  }));
}

/** The sender marks (approved, not ours) of the given organizations. */
export async function senderMarksOfOrgs({ store }: WithStore, orgIds: string[]) {
  if (!orgIds.length) return [];
  const m = store.t.senderMarks;
  return store.db.select({ orgId: m.orgId, key: m.senderKey, verdict: m.verdict }).from(m).where(oneOf(store.dialect, m.orgId, orgIds));
}

const dayOf = (d: Date) => Math.floor(secs(d) / 86_400);

/**
 * The failing rows of the daily sender roll-up of the UTC days after `from`'s day up to `to`'s,
 * with what source_names says of each address (`named` false when it has no row there), per
 * organization: the rows failingMailByService sums per domain and sender (src/lib/task-inputs.ts
 * `failingSenders`), read through the roll-up's failing-rows index and source_names' key.
 */
export async function failingMailOfOrgs({ store }: WithStore, orgIds: string[], from: Date, to: Date) {
  if (!orgIds.length) return [];
  // rows read as arrays (many rows per client)
  const rows = await store.tuples<[string, string, string, number | string, number | string, number | string, number | string | boolean, string | null, string | null]>(sql`
    SELECT s.org_id, s.domain_id, s.source_ip, s.messages - s.passed, s.failed_delivered, s.first_failed_at,
           CASE WHEN n.source_ip IS NULL THEN 0 ELSE 1 END, n.service, n.base_domain
    FROM daily_sender_stats s
    LEFT JOIN source_names n ON n.org_id = s.org_id AND n.source_ip = s.source_ip
    WHERE ${oneOf(store.dialect, sql`s.org_id`, orgIds)} AND s.day > ${dayOf(from)} AND s.day <= ${dayOf(to)} AND s.first_failed_at IS NOT NULL`);
  return rows.map(([orgId, domainId, ip, failing, delivered, firstSeen, named, service, baseDomain]) => ({
    orgId,
    domainId,
    ip,
    failing: Number(failing),
    delivered: Number(delivered),
    firstSeen: Number(firstSeen),
    name: Number(named) ? { service, baseDomain } : undefined,
  }));
}

