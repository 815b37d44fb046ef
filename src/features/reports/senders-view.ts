/** GET /api/senders: who sends mail as the organisation's domains, and whether it is authenticated. */
import type { Database } from "bun:sqlite";
import { summariseSenders, type SenderRow, type SenderSummary } from "../../lib/senders";

const DAY = 86_400;

/**
 * Records whose period started in the last `days` days (ending at `now`), in one organisation,
 * optionally for one policy domain, summed per IP/service/domain/country and grouped by sender.
 */
export function listSenders(sqlite: Database, orgId: string, opts: { days: number; domain?: string; now: Date }): SenderSummary[] {
  const to = Math.floor(opts.now.getTime() / 1000);
  const from = to - opts.days * DAY;
  const rows = sqlite
    .query(
      `SELECT rec.source_ip AS sourceIp, rec.service AS service, rec.service_type AS serviceType, rec.base_domain AS baseDomain,
              r.policy_domain AS policyDomain, rec.country AS country,
              SUM(rec.message_count) AS messages,
              SUM(CASE WHEN rec.dmarc_pass = 1 THEN rec.message_count ELSE 0 END) AS passing,
              SUM(CASE WHEN rec.spf_aligned = 'pass' THEN rec.message_count ELSE 0 END) AS spfAligned,
              SUM(CASE WHEN rec.dkim_aligned = 'pass' THEN rec.message_count ELSE 0 END) AS dkimAligned,
              MAX(rec.date_begin) AS lastSeen
       FROM aggregate_records rec JOIN aggregate_reports r ON r.id = rec.report_id
       WHERE rec.org_id = ?1 AND r.org_id = ?1 AND rec.date_begin > ?2 AND rec.date_begin <= ?3
         AND (?4 IS NULL OR lower(r.policy_domain) = ?4)
       GROUP BY rec.source_ip, rec.service, rec.service_type, rec.base_domain, r.policy_domain, rec.country`,
    )
    .all(orgId, from, to, opts.domain ?? null) as (Omit<SenderRow, "lastSeen"> & { lastSeen: number })[];
  return summariseSenders(rows.map((r) => ({ ...r, lastSeen: r.lastSeen * 1000 })));
}
