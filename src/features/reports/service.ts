/** Reading reports back, always within one organisation. */
import { and, desc, eq, gte, lt, sql } from "drizzle-orm";
import type { aggregateRecords, aggregateReports } from "../../db/schema";
import type { OrgContext, ServiceContext } from "../../http/access";
import { NotFoundError } from "../../http/errors";
import { SELECTOR_PATTERN } from "../../lib/dns/selectors";
import { MAX_DETAIL_RECORDS, MAX_REPORT_LIST, passRateOf, type DmarcRecordView, type DmarcReportDetail, type DmarcReportSummary, type PageQuery } from "./contract";
import { afterKey, decodeCursor, pageOf, type Page } from "./paging";
import { recordIdentifiers } from "./record-auth";
import { sourceNamesOf, type SourceName } from "./source-names";

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

/** `%part%` for LIKE, with LIKE's own characters taken literally (ESCAPE '\\'). */
export const likePart = (part: string) => `%${part.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
/** The first second of a "YYYY-MM-DD" UTC day, and of the day after. */
export const dayStart = (date: string) => new Date(`${date}T00:00:00Z`);
export const dayAfter = (date: string) => new Date(dayStart(date).getTime() + 86_400_000);

/**
 * One page of the organisation's aggregate reports, newest first (GET /api/dmarc-reports): by
 * ?offset= or ?cursor=, narrowed by domain, reporter, the days the period begins in, failing
 * mail only, and a search in the reporter and report id.
 */
export async function listReports(ctx: OrgContext, page: PageQuery = { limit: MAX_REPORT_LIST, offset: 0 }): Promise<Page<DmarcReportSummary>> {
  const { aggregateReports: a } = ctx.store.t;
  const q = page.q ? likePart(page.q) : null;
  const rows = await ctx.store.db
    .select()
    .from(a)
    .where(
      and(
        eq(a.orgId, ctx.actor.orgId),
        page.domain ? eq(a.policyDomain, page.domain) : undefined,
        page.reporter ? sql`lower(${a.reporterOrg}) = ${page.reporter.toLowerCase()}` : undefined,
        page.from ? gte(a.dateBegin, dayStart(page.from)) : undefined,
        page.to ? lt(a.dateBegin, dayAfter(page.to)) : undefined,
        page.failures ? lt(a.passCount, a.messageCount) : undefined,
        q ? sql`(lower(${a.reporterOrg}) LIKE ${q} ESCAPE '\\' OR lower(${a.reportId}) LIKE ${q} ESCAPE '\\')` : undefined,
        page.cursor ? afterKey(a.processedAt, a.dateEnd, a.id, decodeCursor(page.cursor)) : undefined,
      ),
    )
    .orderBy(desc(a.processedAt), desc(a.dateEnd), desc(a.id))
    .limit(page.limit + 1)
    .offset(page.cursor ? 0 : page.offset);
  return pageOf(rows, page, toSummary, (r) => [r.processedAt.getTime() / 1000, r.dateEnd.getTime() / 1000, r.id]);
}

type RecordRow = typeof aggregateRecords.$inferSelect;

/**
 * Records as the API shows them, each with its report's policy domain: their From domains and
 * DKIM and SPF results (kept in the record's row, record-auth.ts) and their addresses' reverse DNS
 * names and sending services (the organization's source_names rows, read in batches by address).
 */
export async function recordViewsOf(ctx: ServiceContext, items: readonly { record: RecordRow; policyDomain: string }[]): Promise<DmarcRecordView[]> {
  const records = items.map((item) => item.record);
  const names = new Map<string, Map<string, SourceName>>();
  for (const orgId of new Set(records.map((r) => r.orgId))) {
    names.set(orgId, await sourceNamesOf(ctx.store, orgId, records.filter((r) => r.orgId === orgId).map((r) => r.sourceIp)));
  }
  return items.map(({ record: r, policyDomain }) => {
    const name = names.get(r.orgId)!.get(r.sourceIp);
    const { headerFrom, envelopeFrom, dkimResults, spfResults } = recordIdentifiers(r, policyDomain);
    return {
      sourceIp: r.sourceIp,
      country: r.country,
      city: r.city,
      ptr: name?.ptr ?? null,
      baseDomain: name?.baseDomain ?? null,
      service: name?.service ?? null,
      serviceType: name?.serviceType ?? null,
      count: r.messageCount,
      disposition: r.disposition,
      dkimAligned: r.dkimAligned,
      spfAligned: r.spfAligned,
      dmarcPass: r.dmarcPass,
      headerFrom,
      envelopeFrom,
      envelopeTo: r.envelopeTo,
      reasons: r.reasons ? JSON.parse(r.reasons) : [],
      dkimResults,
      spfResults,
    };
  });
}

/** One report with its records; another organisation's report is simply not found. */
export async function getReport(ctx: OrgContext, id: string): Promise<DmarcReportDetail> {
  const { aggregateReports, aggregateRecords } = ctx.store.t;
  const db = ctx.store.db;
  const [row] = await db.select().from(aggregateReports).where(and(eq(aggregateReports.id, id), eq(aggregateReports.orgId, ctx.actor.orgId)));
  if (!row) throw new NotFoundError("No such report in this organization.");
  const records = await db
    .select()
    .from(aggregateRecords)
    .where(and(eq(aggregateRecords.reportSeq, row.seq), eq(aggregateRecords.orgId, ctx.actor.orgId)))
    .orderBy(desc(aggregateRecords.messageCount), aggregateRecords.id)
    .limit(MAX_DETAIL_RECORDS);
  const recordViews = await recordViewsOf(ctx, records.map((record) => ({ record, policyDomain: row.policyDomain })));
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

/** How many report selectors a DNS check tries, and how far back reports count. */
export const MAX_SEEN_SELECTORS = 20;
export const SEEN_SELECTORS_DAYS = 365;

/**
 * DKIM selectors seen in the organisation's aggregate reports for `domain` or a subdomain
 * (the DKIM result's d=), most recently seen first, at most `limit`, from the last
 * SEEN_SELECTORS_DAYS days (older keys are likely rotated). Read from dkim_selectors_seen (one
 * row per domain row, signing domain and selector, written with each report), never the
 * records. Selectors come from reporters: only well-formed ones are returned, since they
 * become DNS names. The organisation is named by the caller: a signed-in lookup passes its
 * actor's, the scheduled DNS check the checked domain's.
 */
export async function selectorsSeen(ctx: ServiceContext, orgId: string, domain: string, options: { now?: Date; limit?: number; days?: number } = {}): Promise<string[]> {
  const name = domain.toLowerCase();
  const since = Math.floor(((options.now ?? new Date()).getTime() - (options.days ?? SEEN_SELECTORS_DAYS) * 86_400_000) / 1000);
  const rows = await ctx.store.rows<{ selector: string }>(sql`
    SELECT k.selector AS "selector"
    FROM dkim_selectors_seen k
    WHERE k.org_id = ${orgId} AND k.last_begin >= ${since}
      AND (k.auth_domain = ${name} OR (length(k.auth_domain) >= ${name.length + 1} AND substr(k.auth_domain, length(k.auth_domain) - ${name.length}) = ${"." + name}))
    GROUP BY k.selector
    ORDER BY MAX(k.last_begin) DESC, SUM(k.results) DESC, k.selector
    LIMIT ${(options.limit ?? MAX_SEEN_SELECTORS) * 2}`);
  return rows
    .map((r) => r.selector.trim())
    .filter((s) => s.length <= 253 && SELECTOR_PATTERN.test(s))
    .slice(0, options.limit ?? MAX_SEEN_SELECTORS);
}
