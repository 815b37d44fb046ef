/**
 * Organization figures of several organizations at once, for views across organizations (the
 * MSP portfolio): one statement over the given ids, never one per organization.
 */
import { oneOf } from "../../db/id-set";
import type { WithStore } from "../auth/sessions";

/** The token of each given organization's report address (reportTokenOf's set-based twin). */
export async function reportTokensOfOrgs({ store }: WithStore, orgIds: string[]): Promise<{ orgId: string; token: string }[]> {
  if (!orgIds.length) return [];
  const o = store.t.organizations;
  return store.db.select({ orgId: o.id, token: o.reportToken }).from(o).where(oneOf(store.dialect, o.id, orgIds));
}
