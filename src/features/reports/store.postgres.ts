/**
 * The PostgreSQL report writer: drizzle multi-row inserts in batches, inside the caller's
 * `store.write` (its own pooled connection and transaction). A report insert that meets the
 * identity key of one already stored — by an earlier file, or by another node at the same
 * moment — does nothing (ON CONFLICT DO NOTHING waits for the other transaction) and the
 * stored one is answered as a duplicate.
 */
import { and, eq, sql, type SQL } from "drizzle-orm";
import type { StoreCore } from "../../db/store";
import { recordPassesDmarc, type AggregateHead } from "../../lib/reports/aggregate";
import type { AggregateRecord, AggregateReport, FailureReport, TlsPolicyResult, TlsReport } from "../../lib/reports/model";
import { locateIp } from "./geo";
import { dkimResultsText, spfResultsText, storedFroms } from "./record-auth";
import { insertJsonRows, insertRows, jsonRowsSelect } from "../../db/json-rows";
import { writeCountryDaysPostgres, writeSelectorsPostgres, writeSenderDaysPostgres } from "./rollups";
import {
  addToRollup, initialCounts, jsonList, mergeRollups, newAggregateWrite, takeRollup, tallyBatch, tlsTotals,
  type AggregateWrite, type DeferredRollup, type ReportWriter, type ReportWriterOptions, type StoredReport, type WriteContext,
} from "./store";

/** Records per INSERT (each statement's rows travel as one JSON parameter). */
export const INSERT_BATCH = 1000;

const INSERT_RECORDS = sql`INSERT INTO aggregate_records (report_seq, org_id, source_ip, message_count, disposition, dkim_aligned, spf_aligned, dmarc_pass, header_from, envelope_from, envelope_to, reasons, country, city, dkim_results, spf_results)`;
const RECORD_TYPES = ["text", "bigint", "text", "text", "text", "boolean", "text", "text", "text", "text", "text", "text", "text", "text"] as const;

/** Records (each with its DKIM and SPF results, record-auth.ts) go in as one JSON array per statement (src/db/json-rows.ts). */
async function insertRecordsPostgres(store: StoreCore, reportSeq: number, orgId: string, rows: unknown[][]): Promise<void> {
  await insertJsonRows(store, INSERT_RECORDS, [sql`${reportSeq}::integer`, sql`${orgId}`], RECORD_TYPES, rows);
}

/** A batch of a report's records as rows of INSERT_RECORDS (their addresses located by tallyBatch first). */
function recordRows(write: AggregateWrite, batch: readonly AggregateRecord[]): unknown[][] {
  const policyDomain = write.head.policy.domain;
  return batch.map((r) => {
    const where = write.geo.get(r.sourceIp)!;
    const [headerFrom, envelopeFrom] = storedFroms(r.headerFrom, r.envelopeFrom, policyDomain);
    return [
      r.sourceIp, r.count, r.disposition, r.dkimAligned, r.spfAligned, recordPassesDmarc(r), headerFrom, envelopeFrom, r.envelopeTo, jsonList(r.reasons),
      where.country, where.city, dkimResultsText(r.dkimResults, r.headerFrom), spfResultsText(r.spfResults, r.headerFrom),
    ];
  });
}

/**
 * Record inserts of one report sent and not yet answered at most: a report's batches are sent
 * without waiting for PostgreSQL to insert the ones before (its connection runs them in order),
 * so the next batch is read and its rows built while the server inserts (a 100,000-record upload
 * waited for each of its 100 inserts in turn). Bounded: each holds its rows' JSON until it runs.
 */
export const RECORD_INSERTS_IN_FLIGHT = 4;

export function postgresReportWriter(store: StoreCore, options: ReportWriterOptions = {}): Omit<ReportWriter, "writeAggregate"> {
  const { t } = store;
  /** each report's record inserts under way (RECORD_INSERTS_IN_FLIGHT), oldest first */
  const inFlight = new WeakMap<AggregateWrite, Promise<void>[]>();
  /** Sends a report's record insert; waits only once RECORD_INSERTS_IN_FLIGHT are under way (for the oldest; its failure is thrown). */
  const send = async (write: AggregateWrite, insert: Promise<void>) => {
    // a failure is thrown where it is waited for; until then it must not count as unhandled
    insert.catch(() => {});
    let list = inFlight.get(write);
    if (!list) inFlight.set(write, (list = []));
    list.push(insert);
    if (list.length > RECORD_INSERTS_IN_FLIGHT) await list.shift();
  };
  /** Waits for the report's record inserts under way, in order (the first failure is thrown): before any other statement of the report. */
  const settle = async (write: AggregateWrite) => {
    const list = inFlight.get(write);
    while (list?.length) await list.shift();
  };
  const writeRollup = async (write: AggregateWrite) => {
    await settle(write);
    const rollup = takeRollup(write);
    if (!rollup) return;
    const deferred: DeferredRollup = { ctx: write.ctx, policyDomain: write.head.policy.domain, rollup };
    if (options.deferRollups) options.deferRollups(deferred);
    else await writeRollups([deferred]);
  };
  /**
   * Roll-ups merged per organization, domain, day and policy domain (mergeRollups), each table's
   * rows of all of them in as few statements as they fit (a bulk group's 64 files: three
   * statements, not three per file), then the DKIM selectors merged per domain, signing domain
   * and selector, in one upsert.
   */
  const writeRollups = async (list: DeferredRollup[]) => {
    const { merged, selectors } = mergeRollups(list);
    await writeDomainDays(merged);
    await writeSenderDaysPostgres(store, merged);
    await writeCountryDaysPostgres(store, merged);
    await writeSelectorsPostgres(store, selectors);
  };
  /** daily_domain_stats: the merged roll-ups' counts summed per organization, domain and day (two policy domains of one domain meet one row). */
  const writeDomainDays = async (merged: DeferredRollup[]) => {
    const summed = new Map<string, [string, string, number, number, number, number, number, number, number]>();
    for (const { ctx, rollup } of merged) {
      const c = rollup.domain;
      if (!c) continue;
      const key = `${ctx.orgId}\n${ctx.domainId}\n${rollup.day}`;
      const into = summed.get(key);
      if (!into) summed.set(key, [ctx.orgId, ctx.domainId, rollup.day, c.messages, c.passed, c.quarantined, c.rejected, c.spfAligned, c.dkimAligned]);
      else {
        into[3] += c.messages;
        into[4] += c.passed;
        into[5] += c.quarantined;
        into[6] += c.rejected;
        into[7] += c.spfAligned;
        into[8] += c.dkimAligned;
      }
    }
    await insertRows(
      store,
      {
        table: "daily_domain_stats",
        columns: ["org_id", "domain_id", "day", "messages", "passed", "quarantined", "rejected", "spf_aligned", "dkim_aligned"],
        types: ["text", "text", "integer", "bigint", "bigint", "bigint", "bigint", "bigint", "bigint"],
        tail: sql`ON CONFLICT (org_id, domain_id, day) DO UPDATE SET messages = daily_domain_stats.messages + excluded.messages, passed = daily_domain_stats.passed + excluded.passed,
          quarantined = daily_domain_stats.quarantined + excluded.quarantined, rejected = daily_domain_stats.rejected + excluded.rejected,
          spf_aligned = daily_domain_stats.spf_aligned + excluded.spf_aligned, dkim_aligned = daily_domain_stats.dkim_aligned + excluded.dkim_aligned`,
      },
      [...summed.values()],
    );
  };
  /** The report's row with its starting `counts` (initialCounts), returning its `seq`; nothing (no row returned) when it is stored already. */
  const insertReport = (id: string, ctx: WriteContext, head: AggregateHead, counts: ReturnType<typeof initialCounts>): SQL => {
    const p = head.policy;
    return store.db
      .insert(t.aggregateReports)
      .values({
        // seq: numbered by the database (an identity column)
        id, seq: sql`default`, orgId: ctx.orgId, domainId: ctx.domainId, policyDomain: p.domain, reporterOrg: head.reporterOrg, reporterEmail: head.reporterEmail,
        reporterContact: head.reporterContact, reportId: head.reportId, generator: head.generator, version: head.version, dmarcbis: head.dmarcbis,
        dateBegin: head.dateBegin, dateEnd: head.dateEnd, policyAdkim: p.adkim, policyAspf: p.aspf, policyP: p.p, policySp: p.sp, policyNp: p.np,
        policyPct: p.pct, policyFo: p.fo, policyTesting: p.testing, policyDiscoveryMethod: p.discoveryMethod, reporterErrors: jsonList(head.reporterErrors),
        ...counts, source: ctx.source, fileName: ctx.fileName, processedAt: ctx.now,
      })
      .onConflictDoNothing()
      .returning({ seq: t.aggregateReports.seq })
      .getSQL();
  };
  /** The stored report a report met (same organization, reporter, report id and policy domain): its summary, as a duplicate. */
  const storedDuplicate = async (ctx: WriteContext, head: AggregateHead): Promise<StoredReport> => {
    const a = t.aggregateReports;
    const [existing] = await store.db
      .select({ id: a.id, recordCount: a.recordCount, messageCount: a.messageCount })
      .from(a)
      .where(and(eq(a.orgId, ctx.orgId), eq(a.reporterOrg, head.reporterOrg), eq(a.reportId, head.reportId), eq(a.policyDomain, head.policy.domain)));
    return { ...existing!, messageCount: Number(existing!.messageCount), duplicate: true };
  };
  return {
    async beginAggregate(ctx: WriteContext, head: AggregateHead, whole?: AggregateRecord[]): Promise<AggregateWrite | StoredReport> {
      const id = crypto.randomUUID();
      const inserted = await store.rows<{ seq: number }>(insertReport(id, ctx, head, initialCounts(whole)));
      if (!inserted.length) return storedDuplicate(ctx, head);
      return newAggregateWrite(id, Number(inserted[0]!.seq), ctx, head, whole !== undefined);
    },

    /**
     * A whole report of at most INSERT_BATCH records: its row and its records in one statement
     * (the records' insert reads the report's `seq` from the report's insert; nothing is inserted
     * for a report already stored), one round trip instead of two — a bulk ingest's files are
     * mostly such reports. Null for a larger report, which goes in batches (beginAggregate …).
     */
    async writeWholeAggregate(ctx: WriteContext, report: AggregateReport): Promise<StoredReport | null> {
      const { records, ...head } = report;
      if (records.length === 0 || records.length > INSERT_BATCH) return null;
      const id = crypto.randomUUID();
      // seq 0: the statement gives the records their report's seq itself
      const write = newAggregateWrite(id, 0, ctx, head, true);
      tallyBatch(write, records);
      const { recordCount, messageCount, passCount } = write;
      const rows = recordRows(write, records);
      const inserted = await store.rows<{ seq: number }>(
        sql`WITH report AS (${insertReport(id, ctx, head, { recordCount, messageCount, passCount })}), stored AS (${INSERT_RECORDS} ${jsonRowsSelect([sql`report.seq`, sql`${ctx.orgId}`], RECORD_TYPES, rows, sql`report`)}) SELECT seq FROM report`,
      );
      if (!inserted.length) return storedDuplicate(ctx, head);
      addToRollup(write, records);
      await writeRollup(write);
      return { id, duplicate: false, recordCount: write.recordCount, messageCount: write.messageCount };
    },

    async addAggregateRecords(write: AggregateWrite, records: AggregateRecord[]): Promise<void> {
      const { seq, ctx } = write;
      tallyBatch(write, records);
      for (let start = 0; start < records.length; start += INSERT_BATCH) {
        const batch = records.length <= INSERT_BATCH ? records : records.slice(start, start + INSERT_BATCH);
        await send(write, insertRecordsPostgres(store, seq, ctx.orgId, recordRows(write, batch)));
      }
      if (addToRollup(write, records)) await writeRollup(write);
    },

    async finishAggregate(write: AggregateWrite): Promise<StoredReport> {
      await writeRollup(write);
      const a = t.aggregateReports;
      if (!write.countsWritten)
        await store.db
        .update(a)
        .set({ recordCount: write.recordCount, messageCount: write.messageCount, passCount: write.passCount })
        .where(and(eq(a.orgId, write.ctx.orgId), eq(a.id, write.id)));
      return { id: write.id, duplicate: false, recordCount: write.recordCount, messageCount: write.messageCount };
    },

    async writeFailure(ctx: WriteContext, report: FailureReport): Promise<StoredReport> {
      const tx = store.db;
      const inserted = await tx
        .insert(t.failureReports)
        .values({
          id: crypto.randomUUID(), orgId: ctx.orgId, domainId: ctx.domainId, domain: report.domain, reporterOrg: report.reporterOrg, reportId: report.reportId,
          feedbackType: report.feedbackType, authFailure: report.authFailure, sourceIp: report.sourceIp, country: report.sourceIp ? locateIp(report.sourceIp).country : null,
          arrivalDate: report.arrivalDate, authenticationResults: report.authenticationResults, identityAlignment: report.identityAlignment,
          deliveryResult: report.deliveryResult, dkimDomain: report.dkimDomain, dkimSelector: report.dkimSelector, spfDns: report.spfDns,
          originalMailFrom: report.originalMailFrom, originalRcptTo: report.originalRcptTo, originalFrom: report.originalFrom, originalSubject: report.originalSubject,
          originalMessageId: report.originalMessageId, originalHeaders: report.originalHeaders, plainText: report.plainText, source: ctx.source, fileName: ctx.fileName,
          processedAt: ctx.now,
        })
        .onConflictDoNothing()
        .returning({ id: t.failureReports.id });
      if (inserted.length) return { id: inserted[0]!.id, duplicate: false, recordCount: 1, messageCount: 1 };
      const [existing] = await tx
        .select({ id: t.failureReports.id })
        .from(t.failureReports)
        .where(and(eq(t.failureReports.orgId, ctx.orgId), eq(t.failureReports.reporterOrg, report.reporterOrg), eq(t.failureReports.reportId, report.reportId), eq(t.failureReports.domain, report.domain)));
      return { id: existing!.id, duplicate: true, recordCount: 1, messageCount: 1 };
    },

    async writeTls(ctx: WriteContext, report: TlsReport, policyDomain: string, policies: TlsPolicyResult[]): Promise<StoredReport> {
      const tx = store.db;
      const { successful, failed } = tlsTotals(policies);
      const inserted = await tx
        .insert(t.tlsReports)
        .values({
          id: crypto.randomUUID(), orgId: ctx.orgId, domainId: ctx.domainId, policyDomain, reporterOrg: report.reporterOrg, reportId: report.reportId,
          contactInfo: report.contactInfo, dateBegin: report.dateBegin, dateEnd: report.dateEnd, successfulSessions: successful, failedSessions: failed,
          policies: JSON.stringify(policies), source: ctx.source, fileName: ctx.fileName, processedAt: ctx.now,
        })
        .onConflictDoNothing()
        .returning({ id: t.tlsReports.id });
      if (inserted.length) return { id: inserted[0]!.id, duplicate: false, recordCount: policies.length, messageCount: successful + failed };
      const [existing] = await tx
        .select({ id: t.tlsReports.id, successful: t.tlsReports.successfulSessions, failed: t.tlsReports.failedSessions })
        .from(t.tlsReports)
        .where(and(eq(t.tlsReports.orgId, ctx.orgId), eq(t.tlsReports.reporterOrg, report.reporterOrg), eq(t.tlsReports.reportId, report.reportId), eq(t.tlsReports.policyDomain, policyDomain)));
      return { id: existing!.id, duplicate: true, recordCount: policies.length, messageCount: Number(existing!.successful) + Number(existing!.failed) };
    },

    writeRollups,
  };
}
