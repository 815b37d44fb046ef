/**
 * Domain figures of several organizations at once, for views across organizations (the MSP
 * portfolio): one statement over the given ids, never one per organization.
 */
import { sql } from "drizzle-orm";
import { oneOf } from "../../db/id-set";
import type { WithStore } from "../auth/sessions";
import type { StatusHistoryRow } from "../../lib/tasks";

/** Each domain of the given organizations (listDomains' set-based twin, in no order): its statuses, policy, overall status, creation and last report. */
export async function domainsOfOrgs({ store }: WithStore, orgIds: string[]) {
  if (!orgIds.length) return [];
  const d = store.t.domains;
  return store.db
    .select({
      orgId: d.orgId,
      id: d.id,
      name: d.name,
      dmarcPolicy: d.dmarcPolicy,
      spfStatus: d.spfStatus,
      dkimStatus: d.dkimStatus,
      overallStatus: d.overallStatus,
      createdAt: d.createdAt,
      lastReportAt: d.lastReportAt,
    })
    .from(d)
    .where(oneOf(store.dialect, d.orgId, orgIds));
}

/**
 * Each domain of the given organizations as domainsOfOrgs reads it, with the DMARC record its
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

/**
 * The DNS check history of the given organizations' domains up to `until`, oldest first per
 * domain (statusHistoryOf's set-based twin): each domain of the organizations (their org index),
 * then its rows on the history's (domain, checked_at) index. On PostgreSQL the history is a
 * LATERAL subquery per domain (its ORDER BY keeps the planner from turning it into a join that
 * reads the whole index).
 */
export async function statusHistoryOfOrgs({ store }: WithStore, orgIds: string[], until: Date): Promise<(StatusHistoryRow & { orgId: string })[]> {
  if (!orgIds.length) return [];
  const u = Math.floor(until.getTime() / 1000);
  const columns = sql`h.domain_id AS "domainId", h.checked_at AS "checkedAt", h.dmarc_policy AS "dmarcPolicy", h.spf_status AS "spfStatus", h.dkim_status AS "dkimStatus", h.dmarc_record AS "dmarcRecord"`;
  const history =
    store.dialect === "postgres"
      ? sql`CROSS JOIN LATERAL (SELECT * FROM domain_record_history x WHERE x.domain_id = d.id AND x.org_id = d.org_id AND x.checked_at <= ${u} ORDER BY x.checked_at) h`
      : sql`JOIN domain_record_history h ON h.domain_id = d.id AND h.org_id = d.org_id AND h.checked_at <= ${u}`;
  const rows = await store.rows<Omit<StatusHistoryRow, "checkedAt"> & { orgId: string; checkedAt: number | string }>(sql`
    SELECT d.org_id AS "orgId", ${columns}
    FROM domains d ${history}
    WHERE ${oneOf(store.dialect, sql`d.org_id`, orgIds)}
    ORDER BY h.domain_id, h.checked_at`);
  return rows.map((r) => ({ ...r, checkedAt: new Date(Number(r.checkedAt) * 1000) }));
}
