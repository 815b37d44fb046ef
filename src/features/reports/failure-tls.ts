/** Reading failure (RUF) and SMTP TLS reports back, always within one organisation. */
import { and, desc, eq, gt, gte, lt, sql } from "drizzle-orm";
import type { failureReports, tlsReports } from "../../db/schema";
import type { OrgContext } from "../../http/access";
import { NotFoundError } from "../../http/errors";
import type { TlsPolicyResult } from "../../lib/reports/model";
import { DEFAULT_FAILURE_TLS_LIST, type FailureReportDetail, type FailureReportSummary, type PageQuery, type TlsReportDetail, type TlsReportSummary } from "./contract";
import { afterKey, decodeCursor, pageOf, type Page } from "./paging";
import { dayAfter, dayStart, likePart } from "./service";

type FailureRow = typeof failureReports.$inferSelect;
type TlsRow = typeof tlsReports.$inferSelect;

const iso = (d: Date | null) => (d ? d.toISOString() : null);

function failureSummary(row: FailureRow): FailureReportSummary {
  return {
    id: row.id,
    domain: row.domain,
    reporterOrg: row.reporterOrg,
    sourceIp: row.sourceIp,
    country: row.country,
    arrivalDate: iso(row.arrivalDate),
    authFailure: row.authFailure,
    originalFrom: row.originalFrom,
    originalSubject: row.originalSubject,
  };
}

const FIRST_PAGE: PageQuery = { limit: DEFAULT_FAILURE_TLS_LIST, offset: 0 };

/** One page of the organisation's failure reports, newest first (arrival date, else when received), by offset or cursor, with the list filters. */
export async function listFailureReports(ctx: OrgContext, page = FIRST_PAGE): Promise<Page<FailureReportSummary>> {
  const { failureReports: f } = ctx.store.t;
  const when = sql<number>`coalesce(${f.arrivalDate}, ${f.processedAt})`;
  const seconds = (d: Date) => Math.floor(d.getTime() / 1000);
  const q = page.q ? likePart(page.q) : null;
  const rows = await ctx.store.db
    .select()
    .from(f)
    .where(
      and(
        eq(f.orgId, ctx.actor.orgId),
        page.domain ? eq(f.domain, page.domain) : undefined,
        page.reporter ? sql`lower(${f.reporterOrg}) = ${page.reporter.toLowerCase()}` : undefined,
        page.from ? sql`${when} >= ${seconds(dayStart(page.from))}` : undefined,
        page.to ? sql`${when} < ${seconds(dayAfter(page.to))}` : undefined,
        q ? sql`(lower(${f.reporterOrg}) LIKE ${q} ESCAPE '\\' OR lower(${f.reportId}) LIKE ${q} ESCAPE '\\')` : undefined,
        page.cursor ? afterKey(when, f.processedAt, f.id, decodeCursor(page.cursor)) : undefined,
      ),
    )
    .orderBy(desc(when), desc(f.processedAt), desc(f.id))
    .limit(page.limit + 1)
    .offset(page.cursor ? 0 : page.offset);
  return pageOf(rows, page, failureSummary, (r) => [seconds(r.arrivalDate ?? r.processedAt), seconds(r.processedAt), r.id]);
}

/** One failure report with every stored field; another organisation's is simply not found. */
export async function getFailureReport(ctx: OrgContext, id: string): Promise<FailureReportDetail> {
  const { failureReports } = ctx.store.t;
  const [row] = await ctx.store.db.select().from(failureReports).where(and(eq(failureReports.id, id), eq(failureReports.orgId, ctx.actor.orgId)));
  if (!row) throw new NotFoundError("No such failure report in this organization.");
  return {
    ...failureSummary(row),
    reportId: row.reportId,
    feedbackType: row.feedbackType,
    ptr: row.ptr,
    authenticationResults: row.authenticationResults,
    identityAlignment: row.identityAlignment,
    deliveryResult: row.deliveryResult,
    dkimDomain: row.dkimDomain,
    dkimSelector: row.dkimSelector,
    spfDns: row.spfDns,
    originalMailFrom: row.originalMailFrom,
    originalRcptTo: row.originalRcptTo,
    originalMessageId: row.originalMessageId,
    originalHeaders: row.originalHeaders,
    plainText: row.plainText,
    source: row.source,
    fileName: row.fileName,
    processedAt: row.processedAt.toISOString(),
  };
}

function tlsSummary(row: TlsRow): TlsReportSummary {
  return {
    id: row.id,
    policyDomain: row.policyDomain,
    reporterOrg: row.reporterOrg,
    dateBegin: row.dateBegin.toISOString(),
    dateEnd: row.dateEnd.toISOString(),
    successfulSessions: row.successfulSessions,
    failedSessions: row.failedSessions,
  };
}

/** One page of the organisation's SMTP TLS reports, newest period first, by offset or cursor, with the list filters (failures: sessions that failed). */
export async function listTlsReports(ctx: OrgContext, page = FIRST_PAGE): Promise<Page<TlsReportSummary>> {
  const { tlsReports: r } = ctx.store.t;
  const q = page.q ? likePart(page.q) : null;
  const rows = await ctx.store.db
    .select()
    .from(r)
    .where(
      and(
        eq(r.orgId, ctx.actor.orgId),
        page.domain ? eq(r.policyDomain, page.domain) : undefined,
        page.reporter ? sql`lower(${r.reporterOrg}) = ${page.reporter.toLowerCase()}` : undefined,
        page.from ? gte(r.dateBegin, dayStart(page.from)) : undefined,
        page.to ? lt(r.dateBegin, dayAfter(page.to)) : undefined,
        page.failures ? gt(r.failedSessions, 0) : undefined,
        q ? sql`(lower(${r.reporterOrg}) LIKE ${q} ESCAPE '\\' OR lower(${r.reportId}) LIKE ${q} ESCAPE '\\')` : undefined,
        page.cursor ? afterKey(r.dateBegin, r.processedAt, r.id, decodeCursor(page.cursor)) : undefined,
      ),
    )
    .orderBy(desc(r.dateBegin), desc(r.processedAt), desc(r.id))
    .limit(page.limit + 1)
    .offset(page.cursor ? 0 : page.offset);
  return pageOf(rows, page, tlsSummary, (row) => [row.dateBegin.getTime() / 1000, row.processedAt.getTime() / 1000, row.id]);
}

function parsePolicies(json: string): TlsPolicyResult[] {
  try {
    const value = JSON.parse(json);
    return Array.isArray(value) ? value : [];
  } catch {
    return [];
  }
}

/** One TLS report with its policies and their failure details; another organisation's is not found. */
export async function getTlsReport(ctx: OrgContext, id: string): Promise<TlsReportDetail> {
  const { tlsReports } = ctx.store.t;
  const [row] = await ctx.store.db.select().from(tlsReports).where(and(eq(tlsReports.id, id), eq(tlsReports.orgId, ctx.actor.orgId)));
  if (!row) throw new NotFoundError("No such TLS report in this organization.");
  return {
    ...tlsSummary(row),
    reportId: row.reportId,
    contactInfo: row.contactInfo,
    policies: parsePolicies(row.policies),
    source: row.source,
    fileName: row.fileName,
    processedAt: row.processedAt.toISOString(),
  };
}
