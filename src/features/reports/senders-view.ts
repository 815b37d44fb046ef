/** GET /api/senders: who sends mail as the organisation's domains, and whether it is authenticated. */
import { sql } from "drizzle-orm";
import type { OrgContext } from "../../http/access";
import { MAX_SENDERS, summariseSenders, type SenderRow, type SenderSummary } from "../../lib/senders";
import { senderMarks } from "./sender-marks";

const DAY = 86_400;

type Sums = "messages" | "passing" | "spfAligned" | "dkimAligned" | "lastSeen";
/** A sender row as the database answers it: PostgreSQL hands sums back as strings. */
export type SenderSums = Omit<SenderRow, Sums> & Record<Sums, number | string>;

/**
 * The columns of a sender row (src/lib/senders.ts SenderRow), summed over `aggregate_records rec`
 * joined to `aggregate_reports r` and grouped by SENDER_ROW_GROUP.
 */
export const SENDER_ROW_COLUMNS = sql`rec.source_ip AS "sourceIp", rec.service AS "service", rec.service_type AS "serviceType", rec.base_domain AS "baseDomain",
           r.policy_domain AS "policyDomain", rec.country AS "country",
           SUM(rec.message_count) AS "messages",
           SUM(CASE WHEN rec.dmarc_pass = ${true} THEN rec.message_count ELSE 0 END) AS "passing",
           SUM(CASE WHEN rec.spf_aligned = 'pass' THEN rec.message_count ELSE 0 END) AS "spfAligned",
           SUM(CASE WHEN rec.dkim_aligned = 'pass' THEN rec.message_count ELSE 0 END) AS "dkimAligned",
           MAX(rec.date_begin) AS "lastSeen"`;
export const SENDER_ROW_GROUP = sql`rec.source_ip, rec.service, rec.service_type, rec.base_domain, r.policy_domain, rec.country`;

/** A database row of SENDER_ROW_COLUMNS as a sender row (PostgreSQL hands sums back as strings). */
export const senderRowOf = <R extends SenderSums>(r: R): Omit<R, Sums> & SenderRow => ({
  ...r,
  messages: Number(r.messages),
  passing: Number(r.passing),
  spfAligned: Number(r.spfAligned),
  dkimAligned: Number(r.dkimAligned),
  lastSeen: Number(r.lastSeen) * 1000,
});

/**
 * Records whose period started in the last `days` days (ending at `now`), in the caller's
 * organisation, optionally for one policy domain, summed per IP/service/domain/country and
 * grouped by sender, each with the user's mark (which decides the verdict when set).
 */
export async function listSenders(ctx: OrgContext, opts: { days: number; domain?: string }): Promise<SenderSummary[]> {
  const orgId = ctx.actor.orgId;
  const to = Math.floor(ctx.now().getTime() / 1000);
  const from = to - opts.days * DAY;
  const forDomain = opts.domain ? sql`AND lower(r.policy_domain) = ${opts.domain}` : sql``;
  const rows = await ctx.store.rows<SenderSums>(sql`
    SELECT ${SENDER_ROW_COLUMNS}
    FROM aggregate_records rec JOIN aggregate_reports r ON r.id = rec.report_id
    WHERE rec.org_id = ${orgId} AND r.org_id = ${orgId} AND rec.date_begin > ${from} AND rec.date_begin <= ${to} ${forDomain}
    GROUP BY ${SENDER_ROW_GROUP}`);
  return summariseSenders(rows.map(senderRowOf), MAX_SENDERS, await senderMarks(ctx));
}
