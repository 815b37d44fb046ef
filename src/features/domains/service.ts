import { and, asc, eq } from "drizzle-orm";
import type { DB } from "../../db";
import { domains } from "../../db/schema";
import { ConflictError, NotFoundError } from "../../http/errors";
import { assertCanAddDomain } from "../billing/limits";
import type { DomainView } from "./contract";

function toView(row: typeof domains.$inferSelect): DomainView {
  return {
    id: row.id,
    name: row.name,
    dmarcPolicy: row.dmarcPolicy,
    spfStatus: row.spfStatus,
    dkimStatus: row.dkimStatus,
    overallStatus: row.overallStatus,
    lastReportAt: row.lastReportAt?.toISOString() ?? null,
    lastCheckedAt: row.lastCheckedAt?.toISOString() ?? null,
    createdAt: row.createdAt.toISOString(),
  };
}

/** The organisation's domains, by name. */
export function listDomains(db: DB, orgId: string): DomainView[] {
  return db.select().from(domains).where(eq(domains.orgId, orgId)).orderBy(asc(domains.name)).all().map(toView);
}

const duplicate = (name: string) => new ConflictError(`${name} is already in this organisation's domains.`, { name: "This domain is already added" });

/** Adds a (normalised) domain to the organisation; 409 when it is there already. */
export function addDomain(db: DB, orgId: string, name: string): DomainView {
  assertCanAddDomain(db, orgId);
  if (db.select({ id: domains.id }).from(domains).where(and(eq(domains.orgId, orgId), eq(domains.name, name))).get()) throw duplicate(name);
  try {
    return toView(db.insert(domains).values({ orgId, name }).returning().get());
  } catch (e) {
    if (String(e).includes("UNIQUE")) throw duplicate(name);
    throw e;
  }
}

/** Removes one of the organisation's domains; another organisation's id is simply not found. */
export function deleteDomain(db: DB, orgId: string, id: string): void {
  const row = db.delete(domains).where(and(eq(domains.id, id), eq(domains.orgId, orgId))).returning({ id: domains.id }).get();
  if (!row) throw new NotFoundError("No such domain in this organisation.");
}
