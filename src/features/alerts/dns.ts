/**
 * DNS events of one domain check: the check is compared with the domain's stored snapshot
 * (the last complete check), the new snapshot replaces it and the conditions that hold are
 * recorded — all inside the check's own write, so the status, the snapshot, the events and
 * their deliveries are stored together or not at all.
 */
import { and, eq } from "drizzle-orm";
import { primaryKeyOf } from "../../db/sql";
import { dnsConditions, dnsConditionScope, dnsSnapshot, type DnsCheckLike, type DnsSnapshot } from "../../lib/alerts/dns-events";
import { recordEvents, type AlertsDeps, type RecordedEvent } from "./events";

/** Compares, stores the snapshot and records the events of one complete check. Database work only. */
export async function recordDnsCheck(deps: AlertsDeps, domain: { id: string; orgId: string }, check: DnsCheckLike): Promise<RecordedEvent[]> {
  const after = dnsSnapshot(check);
  // DNS failed during the check: nothing can be concluded from it
  if (!after) return [];
  const { dnsSnapshots } = deps.store.t;
  return deps.store.write(async (tx) => {
    const [row] = await tx.select().from(dnsSnapshots).where(and(eq(dnsSnapshots.orgId, domain.orgId), eq(dnsSnapshots.domainId, domain.id))).limit(1);
    let before: DnsSnapshot | null = null;
    try {
      before = row ? (JSON.parse(row.snapshot) as DnsSnapshot) : null;
    } catch {}
    const at = deps.now();
    const snapshot = JSON.stringify(after);
    await tx
      .insert(dnsSnapshots)
      .values({ domainId: domain.id, orgId: domain.orgId, snapshot, checkedAt: at })
      .onConflictDoUpdate({ target: primaryKeyOf(dnsSnapshots), set: { snapshot, checkedAt: at } });
    return recordEvents(deps, domain.orgId, dnsConditions(before, after), { scope: dnsConditionScope(after.domain) });
  });
}
