import { and, asc, count, eq, inArray, isNotNull, lte, sql } from "drizzle-orm";
import type { StatusHistoryRow } from "../../lib/tasks";
import { larger } from "../../db/sql";
import type { domains } from "../../db/schema";
import { isUniqueViolation, type StoreCore } from "../../db/store";
import type { OrgContext, ServiceContext } from "../../http/access";
import { ConflictError, NotFoundError, ServiceError } from "../../http/errors";
import { describeAlert } from "../../lib/alerts/describe";
import { domainCheckDeps } from "../dns/setup";
import { runDomainCheck } from "./status";
import { assertCanAddDomain } from "../billing/limits";
import type { DomainCheckView, DomainView } from "./contract";

/** A stored domain row as the API shows it (the list, the domain page, the check's answer). */
export function domainView(row: typeof domains.$inferSelect): DomainView {
  return {
    id: row.id,
    name: row.name,
    dmarcPolicy: row.dmarcPolicy,
    spfStatus: row.spfStatus,
    dkimStatus: row.dkimStatus,
    overallStatus: row.overallStatus,
    lastReportAt: row.lastReportAt?.toISOString() ?? null,
    lastCheckedAt: row.lastCheckedAt?.toISOString() ?? null,
    checkFailedAt: row.checkFailedAt?.toISOString() ?? null,
    createdAt: row.createdAt.toISOString(),
  };
}

/** The organisation's domains, by name. */
export async function listDomains(ctx: OrgContext): Promise<DomainView[]> {
  const { domains } = ctx.store.t;
  const rows = await ctx.store.db.select().from(domains).where(eq(domains.orgId, ctx.actor.orgId)).orderBy(asc(domains.name));
  return rows.map(domainView);
}

const duplicate = (name: string) => new ConflictError(`${name} is already in this organization's domains.`, { name: "This domain is already added" });

/**
 * Adds a (normalised) domain to the organisation; 409 when it is there already. The plan's
 * limit is checked in the same transaction as the insert, so parallel adds cannot pass it.
 */
export async function addDomain(ctx: OrgContext, name: string): Promise<DomainView> {
  const { domains } = ctx.store.t;
  const orgId = ctx.actor.orgId;
  try {
    return await ctx.store.write(async (tx) => {
      await assertCanAddDomain(ctx, orgId);
      const [existing] = await tx.select({ id: domains.id }).from(domains).where(and(eq(domains.orgId, orgId), eq(domains.name, name))).limit(1);
      if (existing) throw duplicate(name);
      const [row] = await tx.insert(domains).values({ orgId, name }).returning();
      return domainView(row!);
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw duplicate(name);
    throw error;
  }
}

/** Removes one of the organisation's domains; another organisation's id is simply not found. */
export async function deleteDomain(ctx: OrgContext, id: string): Promise<void> {
  const { domains } = ctx.store.t;
  const removed = await ctx.store.write((tx) => tx.delete(domains).where(and(eq(domains.id, id), eq(domains.orgId, ctx.actor.orgId))).returning({ id: domains.id }));
  if (!removed.length) throw new NotFoundError("No such domain in this organization.");
}

/**
 * "Check now": runs the domain's DNS check at once and answers with its statuses and the DNS
 * events it raised (their alerts are queued; the scheduler sends them). 503 when DNS did not
 * answer for every record: nothing was stored then.
 */
export async function checkDomainNow(ctx: OrgContext, id: string): Promise<DomainCheckView> {
  const { domains } = ctx.store.t;
  const [row] = await ctx.store.db.select({ id: domains.id }).from(domains).where(and(eq(domains.id, id), eq(domains.orgId, ctx.actor.orgId))).limit(1);
  if (!row) throw new NotFoundError("No such domain in this organization.");
  const base = domainCheckDeps(ctx);
  if (!base) throw new ServiceError(503, "dns_unavailable", "DNS checks are not available on this server.");
  // asked for now, typically right after publishing a record: fresh answers, not the cached "no record" of the last check
  const deps = { ...base, cachePolicy: async (orgId: string) => ({ ...(await base.cachePolicy?.(orgId)), refresh: true }) };
  const check = await runDomainCheck(deps, id);
  if (check.outcome === "gone") throw new NotFoundError("No such domain in this organization.");
  if (check.outcome === "incomplete") throw new ServiceError(503, "dns_unavailable", "Could not check (DNS server did not answer): the last good result is kept. Try again in a minute.");
  const [updated] = await ctx.store.db.select().from(domains).where(eq(domains.id, id)).limit(1);
  if (!updated) throw new NotFoundError("No such domain in this organization.");
  return {
    domain: domainView(updated),
    events: check.events.map((e) => {
      const d = describeAlert(e, { organization: { name: "" }, publicUrl: "" });
      return { id: e.id, type: e.type, title: d.title, severity: d.severity };
    }),
  };
}

/** How many domains the organisations hold together (plan limits count an MSP with its clients). */
export async function countDomains(ctx: Pick<ServiceContext, "store">, orgIds: string[]): Promise<number> {
  const { domains } = ctx.store.t;
  const [row] = await ctx.store.db.select({ n: count() }).from(domains).where(inArray(domains.orgId, orgIds));
  return Number(row?.n ?? 0);
}

/**
 * The organisation's domains by id and name, for routing incoming reports (ingestion runs for
 * the organisation a file was sent to, with or without a signed-in user).
 */
export async function domainNamesOf(ctx: Pick<ServiceContext, "store">, orgId: string): Promise<{ id: string; name: string }[]> {
  const { domains } = ctx.store.t;
  return ctx.store.db.select({ id: domains.id, name: domains.name }).from(domains).where(eq(domains.orgId, orgId));
}

/**
 * Adds the names the organisation does not monitor yet, without plan limits or a first DNS
 * check (the demo seed; the scheduler checks them later).
 */
export async function ensureDomains(ctx: { store: StoreCore }, orgId: string, names: string[]): Promise<void> {
  const { domains } = ctx.store.t;
  await ctx.store.write(async (tx) => {
    const existing = new Set((await tx.select({ name: domains.name }).from(domains).where(eq(domains.orgId, orgId))).map((d) => d.name));
    for (const name of names) if (!existing.has(name)) await tx.insert(domains).values({ orgId, name });
  });
}

/** When the last report about the domain arrived (null: none yet, or no such domain). */
export async function lastReportAtOf(ctx: { store: StoreCore }, domainId: string): Promise<Date | null> {
  const { domains } = ctx.store.t;
  const [row] = await ctx.store.db.select({ lastReportAt: domains.lastReportAt }).from(domains).where(eq(domains.id, domainId)).limit(1);
  return row?.lastReportAt ?? null;
}

/** Every domain, of every organisation, that has received a report (the hourly "reports stopped" job walks them). */
export async function domainsWithReports(ctx: { store: StoreCore }): Promise<{ id: string; orgId: string; name: string; lastReportAt: Date }[]> {
  const { domains } = ctx.store.t;
  const rows = await ctx.store.db.select({ id: domains.id, orgId: domains.orgId, name: domains.name, lastReportAt: domains.lastReportAt }).from(domains).where(isNotNull(domains.lastReportAt));
  return rows.flatMap((row) => (row.lastReportAt ? [{ ...row, lastReportAt: row.lastReportAt }] : []));
}

/**
 * PostgreSQL, inside a report write and before its other statements: takes the rows of the
 * domains whose report arrival the write will record (recordReportArrival), in id order. A write
 * that changes one of them meanwhile (a DNS check, another report's arrival) then waits for this
 * one; otherwise it would commit first and this write, SERIALIZABLE, would fail at its end on that
 * row and run again whole. Nothing on SQLite (one writer at a time).
 */
export async function holdDomainRows(ctx: Pick<ServiceContext, "store">, orgId: string, domainIds: readonly string[]): Promise<void> {
  if (ctx.store.dialect !== "postgres" || !domainIds.length) return;
  const ids = sql.join([...new Set(domainIds)].map((id) => sql`${id}`), sql`, `);
  await ctx.store.rows(sql`SELECT id FROM domains WHERE org_id = ${orgId} AND id IN (${ids}) ORDER BY id FOR NO KEY UPDATE`);
}

/** Notes that a report about the domain arrived, dated `at` (never moves the date back). Call inside the report's write. */
export async function recordReportArrival(ctx: Pick<ServiceContext, "store">, domainId: string, at: Date): Promise<void> {
  const { domains } = ctx.store.t;
  const seconds = Math.floor(at.getTime() / 1000);
  await ctx.store.write((tx) => tx.update(domains).set({ lastReportAt: sql`${larger(domains.lastReportAt, seconds)}` }).where(eq(domains.id, domainId)));
}

/** The organisation's DNS check history up to `until`, by domain, oldest first (the dashboard compares statuses over time). */
export async function statusHistoryOf(ctx: Pick<ServiceContext, "store">, orgId: string, until: Date): Promise<Map<string, StatusHistoryRow[]>> {
  const { domainRecordHistory: h } = ctx.store.t;
  const rows = await ctx.store.db
    .select({ domainId: h.domainId, checkedAt: h.checkedAt, dmarcPolicy: h.dmarcPolicy, spfStatus: h.spfStatus, dkimStatus: h.dkimStatus, dmarcRecord: h.dmarcRecord })
    .from(h)
    .where(and(eq(h.orgId, orgId), lte(h.checkedAt, until)))
    .orderBy(asc(h.domainId), asc(h.checkedAt));
  const byDomain = new Map<string, StatusHistoryRow[]>();
  for (const row of rows) {
    let list = byDomain.get(row.domainId);
    if (!list) byDomain.set(row.domainId, (list = []));
    list.push(row);
  }
  return byDomain;
}
