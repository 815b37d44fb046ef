/**
 * Domain figures of several organizations at once, for views across organizations (the MSP
 * portfolio): one statement over the given ids, never one per organization.
 */
import { sql } from "drizzle-orm";
import { oneOf } from "../../db/id-set";
import type { WithStore } from "../auth/sessions";

/**
 * Each domain of the given organizations (listDomains' set-based twin, in no order: its statuses,
 * policy, overall status, creation and last report), with the DMARC record its
 * last DNS check up to `until` found (null without one): what decides a domain's tasks, in one
 * statement (each domain's last history row on the history's (domain, checked_at) index), its
 * rows read as arrays.
 */
export async function domainsWithRecordOfOrgs({ store }: WithStore, orgIds: string[], until: Date) {
  if (!orgIds.length) return [];
  const rows = await store.tuples<[string, string, string, string | null, string | null, string | null, string, number | string, number | string | null, string | null]>(sql`
    SELECT d.org_id, d.id, d.name, d.dmarc_policy, d.spf_status, d.dkim_status, d.overall_status, d.created_at, d.last_report_at,
           (SELECT h.dmarc_record FROM domain_record_history h WHERE h.domain_id = d.id AND h.org_id = d.org_id AND h.checked_at <= ${Math.floor(until.getTime() / 1000)} ORDER BY h.checked_at DESC LIMIT 1)
    FROM domains d
    WHERE ${oneOf(store.dialect, sql`d.org_id`, orgIds)}`);
  return rows.map(([orgId, id, name, dmarcPolicy, spfStatus, dkimStatus, overallStatus, createdAt, lastReportAt, dmarcRecord]) => ({
    orgId,
    id,
    name,
    dmarcPolicy,
    spfStatus,
    dkimStatus,
    overallStatus,
    createdAt: new Date(Number(createdAt) * 1000),
    lastReportAt: lastReportAt === null ? null : new Date(Number(lastReportAt) * 1000),
    dmarcRecord,
  }));
}
