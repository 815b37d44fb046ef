/**
 * Settings of several organizations at once, for views across organizations (the MSP
 * portfolio): one statement over the given ids, never one per organization.
 */
import { oneOf } from "../../db/id-set";
import type { WithStore } from "../auth/sessions";

/** Settings → DMARC rua of each given organization that saved its settings ("" or null when not set; organizations never saved have no row and no rua). */
export async function dmarcRuaOfOrgs({ store }: WithStore, orgIds: string[]): Promise<{ orgId: string; dmarcRua: string | null }[]> {
  if (!orgIds.length) return [];
  const s = store.t.organizationSettings;
  return store.db.select({ orgId: s.orgId, dmarcRua: s.dmarcRua }).from(s).where(oneOf(store.dialect, s.orgId, orgIds));
}
