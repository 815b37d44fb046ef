/**
 * What the weekly digest reads of the domains feature: the domains of one or more organisations
 * with their current overall status, and when a domain's overall status changed (from the DNS
 * check history, which holds a row per check that changed something).
 */
import { and, asc, inArray, lt } from "drizzle-orm";
import type { ServiceContext } from "../../http/access";
import type { OverallStatus } from "../../lib/dns/overall";

type Ctx = Pick<ServiceContext, "store">;

const STATUSES: readonly string[] = ["protected", "partial", "vulnerable"];
const asStatus = (value: string): OverallStatus => (STATUSES.includes(value) ? (value as OverallStatus) : "vulnerable");

export interface DomainStatusRow {
  id: string;
  orgId: string;
  name: string;
  status: OverallStatus;
  createdAt: Date;
}

/** The organisations' domains and their overall status now, by name. */
export async function domainStatusesOf(ctx: Ctx, orgIds: string[]): Promise<DomainStatusRow[]> {
  if (!orgIds.length) return [];
  const { domains } = ctx.store.t;
  const rows = await ctx.store.db
    .select({ id: domains.id, orgId: domains.orgId, name: domains.name, status: domains.overallStatus, createdAt: domains.createdAt })
    .from(domains)
    .where(inArray(domains.orgId, orgIds))
    .orderBy(asc(domains.name));
  return rows.map((r) => ({ ...r, status: asStatus(r.status) }));
}

export interface StatusChange {
  domainId: string;
  at: Date;
  before: OverallStatus;
  after: OverallStatus;
}

/** Changes of overall status checked in [from, to), oldest first (a domain's first check is not a change). */
export async function statusChangesBetween(ctx: Ctx, orgIds: string[], from: Date, to: Date): Promise<StatusChange[]> {
  if (!orgIds.length) return [];
  const h = ctx.store.t.domainRecordHistory;
  const rows = await ctx.store.db
    .select({ domainId: h.domainId, checkedAt: h.checkedAt, status: h.overallStatus })
    .from(h)
    .where(and(inArray(h.orgId, orgIds), lt(h.checkedAt, to)))
    .orderBy(asc(h.domainId), asc(h.checkedAt));
  const changes: StatusChange[] = [];
  for (let i = 1; i < rows.length; i++) {
    const previous = rows[i - 1]!;
    const row = rows[i]!;
    if (row.domainId !== previous.domainId || row.status === previous.status) continue;
    if (row.checkedAt.getTime() < from.getTime()) continue;
    changes.push({ domainId: row.domainId, at: row.checkedAt, before: asStatus(previous.status), after: asStatus(row.status) });
  }
  return changes.sort((a, b) => a.at.getTime() - b.at.getTime());
}
