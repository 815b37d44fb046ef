/** What an organization's source_names rows say of some of its sending addresses. */
import { sql } from "drizzle-orm";
import type { StoreCore } from "../../db/store";

export interface SourceName {
  ptr: string;
  baseDomain: string | null;
  service: string | null;
  serviceType: string | null;
}

/** Addresses per statement (one parameter each). */
const PER_STATEMENT = 500;

/** The reverse DNS names and sending services of `ips` (of organization `orgId`) that source_names holds, by address, read on its key. */
export async function sourceNamesOf(store: StoreCore, orgId: string, ips: readonly string[]): Promise<Map<string, SourceName>> {
  const names = new Map<string, SourceName>();
  const unique = [...new Set(ips)];
  for (let i = 0; i < unique.length; i += PER_STATEMENT) {
    const rows = await store.rows<SourceName & { ip: string }>(sql`
      SELECT source_ip AS "ip", ptr AS "ptr", base_domain AS "baseDomain", service AS "service", service_type AS "serviceType"
      FROM source_names WHERE org_id = ${orgId} AND source_ip IN (${sql.join(unique.slice(i, i + PER_STATEMENT).map((ip) => sql`${ip}`), sql`, `)})`);
    for (const { ip, ...name } of rows) names.set(ip, name);
  }
  return names;
}
