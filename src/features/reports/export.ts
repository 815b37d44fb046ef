/**
 * GET /api/records.csv: one row per aggregate record of the organisation (or one domain) whose
 * report began in the last N UTC days, oldest first, with a header row, written by src/lib/csv.ts
 * (RFC 4180 quoting, formula cells neutralised). The body is a stream that reads the records in
 * keyset pages of EXPORT_PAGE, so memory stays the same at a million rows; the reports' (org_id,
 * date_begin) index and the records' report index serve each page.
 */
import { and, asc, eq, gt, gte, or } from "drizzle-orm";
import type { OrgContext } from "../../http/access";
import { csvLine } from "../../lib/csv";
import { lastDays, parseUtcDate } from "../../lib/trends";
import { domainIdByName } from "../trends/service";
import type { AuthResultView } from "./contract";
import { recordIdentifiers } from "./record-auth";

/** Records read per query. */
export const EXPORT_PAGE = 1000;

export const CSV_COLUMNS = [
  "date_begin", "date_end", "reporter", "report_id", "policy_domain", "source_ip", "country", "ptr", "service", "count",
  "disposition", "dkim_aligned", "spf_aligned", "header_from", "envelope_from", "dkim_results", "spf_results",
] as const;

/** "example.com:s1=pass; other.net:s2=fail" (DKIM, with selectors) or "example.com=pass" (SPF). */
const authText = (results: AuthResultView[]) => results.map((a) => `${a.domain}${a.selector ? `:${a.selector}` : ""}=${a.result}`).join("; ");

/** The CSV stream of the records whose report began on or after the first of the last `days` UTC days. */
export async function recordsCsv(ctx: OrgContext, query: { days: number; domain?: string }): Promise<{ stream: ReadableStream<Uint8Array>; fileName: string }> {
  const domainId = query.domain ? await domainIdByName(ctx, query.domain) : null;
  const { from, to } = lastDays(query.days, ctx.now());
  const since = new Date(parseUtcDate(from));
  const orgId = ctx.actor.orgId;
  const { aggregateRecords: r, aggregateReports: a, sourceNames: n } = ctx.store.t;
  const db = ctx.store.db;
  const encoder = new TextEncoder();
  let after: { dateBegin: Date; id: number } | null = null;
  let started = false;
  let done = false;

  const page = async () => {
    const rows = await db
      .select({
        id: r.id, dateBegin: a.dateBegin, dateEnd: a.dateEnd, reporter: a.reporterOrg, reportId: a.reportId, policyDomain: a.policyDomain,
        sourceIp: r.sourceIp, country: r.country, ptr: n.ptr, service: n.service, count: r.messageCount, disposition: r.disposition,
        dkimAligned: r.dkimAligned, spfAligned: r.spfAligned, headerFrom: r.headerFrom, envelopeFrom: r.envelopeFrom, dkimResults: r.dkimResults, spfResults: r.spfResults,
      })
      .from(a)
      .innerJoin(r, and(eq(r.orgId, a.orgId), eq(r.reportSeq, a.seq)))
      .leftJoin(n, and(eq(n.orgId, r.orgId), eq(n.sourceIp, r.sourceIp)))
      .where(
        and(
          eq(a.orgId, orgId),
          // the page's start (implied by the keyset below, and spelt out so the index starts there)
          gte(a.dateBegin, after ? after.dateBegin : since),
          domainId ? eq(a.domainId, domainId) : undefined,
          after ? or(gt(a.dateBegin, after.dateBegin), and(eq(a.dateBegin, after.dateBegin), gt(r.id, after.id))) : undefined,
        ),
      )
      .orderBy(asc(a.dateBegin), asc(r.id))
      .limit(EXPORT_PAGE);
    if (rows.length < EXPORT_PAGE) done = true;
    if (!rows.length) return "";
    const last = rows[rows.length - 1]!;
    after = { dateBegin: last.dateBegin, id: Number(last.id) };
    let text = "";
    for (const row of rows) {
      const { headerFrom, envelopeFrom, dkimResults, spfResults } = recordIdentifiers(row, row.policyDomain);
      text += csvLine([
        row.dateBegin.toISOString(), row.dateEnd.toISOString(), row.reporter, row.reportId, row.policyDomain, row.sourceIp, row.country, row.ptr, row.service,
        Number(row.count), row.disposition, row.dkimAligned, row.spfAligned, headerFrom, envelopeFrom, authText(dkimResults), authText(spfResults),
      ]);
    }
    return text;
  };

  const stream = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          if (!started) {
            started = true;
            controller.enqueue(encoder.encode(csvLine(CSV_COLUMNS)));
            return;
          }
          const text = await page();
          if (text) controller.enqueue(encoder.encode(text));
          if (done) controller.close();
        } catch (error) {
          ctx.log.error("records_csv_failed", { error: error instanceof Error ? error.message : String(error) });
          controller.error(error);
        }
      },
    },
    // one page at a time: the next is read when the client has taken this one
    { highWaterMark: 0 },
  );
  const fileName = `dmarc-records-${query.domain ?? "all-domains"}-${from}-to-${to}.csv`;
  return { stream, fileName };
}
