/**
 * Domain figures of several organizations at once, for views across organizations (the MSP
 * portfolio): one statement over the given ids, never one per organization.
 */
import { inArray } from "drizzle-orm";
import type { WithStore } from "../auth/sessions";

/** Each domain of the given organizations: its policy, overall status and last report. */
export async function domainsOfOrgs({ store }: WithStore, orgIds: string[]) {
  if (!orgIds.length) return [];
  const d = store.t.domains;
  return store.db
    .select({ orgId: d.orgId, name: d.name, dmarcPolicy: d.dmarcPolicy, overallStatus: d.overallStatus, lastReportAt: d.lastReportAt })
    .from(d)
    .where(inArray(d.orgId, orgIds));
}
