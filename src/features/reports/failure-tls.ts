/** Reading failure (RUF) and SMTP TLS reports back, always within one organisation. */
import { and, desc, eq, sql } from "drizzle-orm";
import type { failureReports, tlsReports } from "../../db/schema";
import type { OrgContext } from "../../http/access";
import { NotFoundError } from "../../http/errors";
import type { TlsPolicyResult } from "../../lib/reports/model";
import { DEFAULT_FAILURE_TLS_LIST, type FailureReportDetail, type FailureReportSummary, type PageQuery, type TlsReportDetail, type TlsReportSummary } from "./contract";
import { pageOf, type Page } from "./paging";

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

/** One page of the organisation's failure reports, newest first (arrival date, else when received). */
export async function listFailureReports(ctx: OrgContext, page = FIRST_PAGE): Promise<Page<FailureReportSummary>> {
  const { failureReports } = ctx.store.t;
  const rows = await ctx.store.db
    .select()
    .from(failureReports)
    .where(eq(failureReports.orgId, ctx.actor.orgId))
    .orderBy(desc(sql`coalesce(${failureReports.arrivalDate}, ${failureReports.processedAt})`), desc(failureReports.processedAt), desc(failureReports.id))
    .limit(page.limit + 1)
    .offset(page.offset);
  return pageOf(rows.map(failureSummary), page);
}

/** One failure report with every stored field; another organisation's is simply not found. */
export async function getFailureReport(ctx: OrgContext, id: string): Promise<FailureReportDetail> {
  const { failureReports } = ctx.store.t;
  const [row] = await ctx.store.db.select().from(failureReports).where(and(eq(failureReports.id, id), eq(failureReports.orgId, ctx.actor.orgId)));
  if (!row) throw new NotFoundError("No such failure report in this organisation.");
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

/** One page of the organisation's SMTP TLS reports, newest period first. */
export async function listTlsReports(ctx: OrgContext, page = FIRST_PAGE): Promise<Page<TlsReportSummary>> {
  const { tlsReports } = ctx.store.t;
  const rows = await ctx.store.db
    .select()
    .from(tlsReports)
    .where(eq(tlsReports.orgId, ctx.actor.orgId))
    .orderBy(desc(tlsReports.dateBegin), desc(tlsReports.processedAt), desc(tlsReports.id))
    .limit(page.limit + 1)
    .offset(page.offset);
  return pageOf(rows.map(tlsSummary), page);
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
  if (!row) throw new NotFoundError("No such TLS report in this organisation.");
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
