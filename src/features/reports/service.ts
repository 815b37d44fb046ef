/** Reading reports back, always within one organisation. */
import { and, desc, eq, inArray } from "drizzle-orm";
import type { DB } from "../../db";
import { aggregateAuthResults, aggregateRecords, aggregateReports } from "../../db/schema";
import { NotFoundError } from "../../http/errors";
import { MAX_DETAIL_RECORDS, MAX_REPORT_LIST, passRateOf, type AuthResultView, type DmarcRecordView, type DmarcReportDetail, type DmarcReportSummary } from "./contract";

type ReportRow = typeof aggregateReports.$inferSelect;

function toSummary(row: ReportRow): DmarcReportSummary {
  return {
    id: row.id,
    orgName: row.reporterOrg,
    totalMessages: row.messageCount,
    passRate: passRateOf(row.passCount, row.messageCount),
    processedAt: row.processedAt.toISOString(),
    domain: row.policyDomain,
    reportId: row.reportId,
    recordCount: row.recordCount,
    dateBegin: row.dateBegin.toISOString(),
    dateEnd: row.dateEnd.toISOString(),
    source: row.source,
  };
}

/** The organisation's aggregate reports, newest first, at most `limit` (GET /api/dmarc-reports ?limit=). */
export function listReports(db: DB, orgId: string, limit = MAX_REPORT_LIST): DmarcReportSummary[] {
  return db
    .select()
    .from(aggregateReports)
    .where(eq(aggregateReports.orgId, orgId))
    .orderBy(desc(aggregateReports.processedAt), desc(aggregateReports.dateEnd))
    .limit(limit)
    .all()
    .map(toSummary);
}

/** One report with its records; another organisation's report is simply not found. */
export function getReport(db: DB, orgId: string, id: string): DmarcReportDetail {
  const row = db.select().from(aggregateReports).where(and(eq(aggregateReports.id, id), eq(aggregateReports.orgId, orgId))).get();
  if (!row) throw new NotFoundError("No such report in this organisation.");
  const records = db.select().from(aggregateRecords).where(eq(aggregateRecords.reportId, id)).orderBy(desc(aggregateRecords.messageCount)).limit(MAX_DETAIL_RECORDS).all();
  const auth = new Map<number, { dkim: AuthResultView[]; spf: AuthResultView[] }>();
  for (let i = 0; i < records.length; i += 500) {
    const ids = records.slice(i, i + 500).map((r) => r.id);
    for (const a of db.select().from(aggregateAuthResults).where(inArray(aggregateAuthResults.recordId, ids)).all()) {
      let entry = auth.get(a.recordId);
      if (!entry) auth.set(a.recordId, (entry = { dkim: [], spf: [] }));
      if (a.method === "dkim") entry.dkim.push({ domain: a.domain, selector: a.selector, result: a.result, humanResult: a.humanResult });
      else entry.spf.push({ domain: a.domain, scope: a.scope, result: a.result, humanResult: a.humanResult });
    }
  }
  const recordViews: DmarcRecordView[] = records.map((r) => ({
    sourceIp: r.sourceIp,
    country: r.country,
    city: r.city,
    ptr: r.ptr,
    baseDomain: r.baseDomain,
    service: r.service,
    serviceType: r.serviceType,
    count: r.messageCount,
    disposition: r.disposition,
    dkimAligned: r.dkimAligned,
    spfAligned: r.spfAligned,
    dmarcPass: r.dmarcPass,
    headerFrom: r.headerFrom,
    envelopeFrom: r.envelopeFrom,
    envelopeTo: r.envelopeTo,
    reasons: r.reasons ? JSON.parse(r.reasons) : [],
    dkimResults: auth.get(r.id)?.dkim ?? [],
    spfResults: auth.get(r.id)?.spf ?? [],
  }));
  return {
    ...toSummary(row),
    reporterEmail: row.reporterEmail,
    reporterContact: row.reporterContact,
    generator: row.generator,
    version: row.version,
    reporterErrors: row.reporterErrors ? JSON.parse(row.reporterErrors) : [],
    policy: {
      domain: row.policyDomain,
      p: row.policyP,
      sp: row.policySp,
      np: row.policyNp,
      adkim: row.policyAdkim,
      aspf: row.policyAspf,
      pct: row.policyPct,
      fo: row.policyFo,
      testing: row.policyTesting,
      discoveryMethod: row.policyDiscoveryMethod,
    },
    records: recordViews,
    recordsTruncated: row.recordCount > records.length,
  };
}
