/**
 * The SQLite report writer: prepared bun:sqlite statements on the store's connection, run
 * inside the caller's `store.write` (which holds the write lock and the open transaction).
 */
import type { Database, Statement } from "bun:sqlite";
import { recordPassesDmarc, type AggregateHead } from "../../lib/reports/aggregate";
import type { AggregateRecord, FailureReport, TlsPolicyResult, TlsReport } from "../../lib/reports/model";
import { collectWhenGrown } from "../../lib/memory";
import { locateIp } from "./geo";
import { dkimResultsText, spfResultsText, storedFroms } from "./record-auth";
import { RAISE_ROLLUP_VERSION, RAISE_ROLLUP_VERSION_UNSETTLED, unsettledFrom } from "./read-cache";
import { RowRunner, sizedStatements } from "./sqlite-rows";
import { COUNTRY_DAY_COLUMNS, COUNTRY_DAY_UPSERT, countryValues, SELECTOR_UPSERT, SENDER_DAY_COLUMNS, SENDER_DAY_UPSERT, senderDayValues, type SourceRollup } from "./rollups";
import {
  addToRollup, initialCounts, jsonList, mergeRollups, newAggregateWrite, takeRollup, tallyBatch, tlsTotals,
  type AggregateWrite, type DeferredRollup, type ReportWriter, type ReportWriterOptions, type StoredReport, type WriteContext,
} from "./store";

const epoch = (d: Date) => Math.floor(d.getTime() / 1000);

/**
 * Records (each with its DKIM and SPF results, record-auth.ts) go in by multi-row INSERTs of
 * RECORD_ROWS rows (one call into SQLite for many rows; the rest in as few calls, sqlite-rows.ts).
 */
const RECORD_COLUMNS = 16;
const RECORD_ROWS = 64;
const INSERT_RECORDS = `INSERT INTO aggregate_records (report_seq, org_id, source_ip, message_count, disposition, dkim_aligned, spf_aligned, dmarc_pass,
  header_from, envelope_from, envelope_to, reasons, country, city, dkim_results, spf_results) VALUES`;
const rowsOf = (columns: number, rows: number) => Array.from({ length: rows }, () => `(${Array.from({ length: columns }, () => "?").join(", ")})`).join(", ");

type Value = string | number | null;

interface Statements {
  findAggregate: Statement;
  insertAggregate: Statement;
  /** the records' INSERT of n rows */
  insertRecords: (rows: number) => Statement;
  findFailure: Statement;
  insertFailure: Statement;
  findTls: Statement;
  insertTls: Statement;
  upsertDomainDay: Statement;
  upsertSenderDays: (rows: number) => Statement;
  upsertSelector: Statement;
  upsertCountryDays: (rows: number) => Statement;
  raiseVersion: Statement;
  raiseVersionUnsettled: Statement;
  setAggregateCounts: Statement;
}

const ADD_COUNTS = "messages = messages + excluded.messages, passed = passed + excluded.passed, quarantined = quarantined + excluded.quarantined, rejected = rejected + excluded.rejected, spf_aligned = spf_aligned + excluded.spf_aligned, dkim_aligned = dkim_aligned + excluded.dkim_aligned";

/**
 * The per-source and per-country roll-ups go in by multi-row upserts of UPSERT_ROWS rows (one
 * call into SQLite for many rows; rows of one key in one statement merge as in separate ones).
 */
const UPSERT_ROWS = 32;
/** A one-row upsert made into one of `rows` rows: its VALUES group repeated. */
const upsertOfRows = (upsert: string, rows: number) => upsert.replace(/VALUES (\((?:\?, )*\?\))/, (_, group: string) => `VALUES ${Array.from({ length: rows }, () => group).join(", ")}`);

const statements = new WeakMap<Database, Statements>();

function prepare(sqlite: Database): Statements {
  let s = statements.get(sqlite);
  if (s) return s;
  s = {
    findAggregate: sqlite.prepare("SELECT id, record_count AS recordCount, message_count AS messageCount FROM aggregate_reports WHERE org_id = ? AND reporter_org = ? AND report_id = ? AND policy_domain = ?"),
    insertAggregate: sqlite.prepare(
      `INSERT INTO aggregate_reports (id, org_id, domain_id, policy_domain, reporter_org, reporter_email, reporter_contact, report_id, generator, version, dmarcbis,
        date_begin, date_end, policy_adkim, policy_aspf, policy_p, policy_sp, policy_np, policy_pct, policy_fo, policy_testing, policy_discovery_method,
        reporter_errors, record_count, message_count, pass_count, source, file_name, processed_at, seq)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, (SELECT coalesce(max(seq), 0) + 1 FROM aggregate_reports))
       RETURNING seq`,
    ),
    insertRecords: sizedStatements(sqlite, (rows) => `${INSERT_RECORDS} ${rowsOf(RECORD_COLUMNS, rows)}`),
    findFailure: sqlite.prepare("SELECT id FROM failure_reports WHERE org_id = ? AND reporter_org = ? AND report_id = ? AND domain = ?"),
    insertFailure: sqlite.prepare(
      `INSERT INTO failure_reports (id, org_id, domain_id, domain, reporter_org, report_id, feedback_type, auth_failure, source_ip, country, arrival_date,
        authentication_results, identity_alignment, delivery_result, dkim_domain, dkim_selector, spf_dns, original_mail_from, original_rcpt_to,
        original_from, original_subject, original_message_id, original_headers, plain_text, source, file_name, processed_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    findTls: sqlite.prepare("SELECT id, successful_sessions + failed_sessions AS sessions FROM tls_reports WHERE org_id = ? AND reporter_org = ? AND report_id = ? AND policy_domain = ?"),
    insertTls: sqlite.prepare(
      `INSERT INTO tls_reports (id, org_id, domain_id, policy_domain, reporter_org, report_id, contact_info, date_begin, date_end, successful_sessions, failed_sessions, policies, source, file_name, processed_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    upsertDomainDay: sqlite.prepare(
      `INSERT INTO daily_domain_stats (org_id, domain_id, day, messages, passed, quarantined, rejected, spf_aligned, dkim_aligned) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (org_id, domain_id, day) DO UPDATE SET ${ADD_COUNTS}`,
    ),
    upsertSenderDays: sizedStatements(sqlite, (rows) => upsertOfRows(SENDER_DAY_UPSERT, rows)),
    upsertSelector: sqlite.prepare(SELECTOR_UPSERT),
    upsertCountryDays: sizedStatements(sqlite, (rows) => upsertOfRows(COUNTRY_DAY_UPSERT, rows)),
    raiseVersion: sqlite.prepare(RAISE_ROLLUP_VERSION),
    raiseVersionUnsettled: sqlite.prepare(RAISE_ROLLUP_VERSION_UNSETTLED),
    setAggregateCounts: sqlite.prepare("UPDATE aggregate_reports SET record_count = ?, message_count = ?, pass_count = ? WHERE id = ?"),
  };
  statements.set(sqlite, s);
  return s;
}

/** Orders text keys as SQLite's BINARY collation does (for the ASCII of addresses, ids and domains). */
const compare = (a: Value, b: Value) => (a === b ? 0 : a === null ? -1 : b === null ? 1 : a < b ? -1 : 1);

export function sqliteReportWriter(sqlite: Database, options: ReportWriterOptions = {}): Omit<ReportWriter, "writeAggregate"> {
  const s = prepare(sqlite);
  /** one record's values (in the order of INSERT_RECORDS), reused: the runner copies them */
  const row = new Array<Value>(RECORD_COLUMNS).fill(null);
  /**
   * Roll-ups merged per organization, domain, day and policy domain; the per-source rows go in
   * sorted by daily_sender_stats' primary key (organization, day, address), so consecutive
   * upserts meet the same or neighbouring pages of the table (its rows are the widest entries,
   * about 200 bytes) and of the indexes that begin with the day or the domain; the (organization,
   * address, day) index is then met in one ordered pass per day. Sorted by address first, a bulk
   * group of files of many days jumped between the days' parts of the table at every row: 100,000
   * such rows took 1.1-1.8 s against 0.65-1.2 s, bench:ingest 15-35% slower (docs/benchmarks.md).
   */
  /** `large`: one large report's roll-ups, kept near what is live (WriteContext.large); a bulk group's never are */
  const writeRollups = (list: DeferredRollup[], large = false) => {
    const { merged, selectors } = mergeRollups(list);
    const sources: { ctx: WriteContext; day: number; policyDomain: string; x: SourceRollup }[] = [];
    const countries = new RowRunner(s.upsertCountryDays, UPSERT_ROWS, COUNTRY_DAY_COLUMNS);
    for (const { ctx, policyDomain, rollup } of merged) {
      if (rollup.domain) {
        const d = rollup.domain;
        s.upsertDomainDay.run(ctx.orgId, ctx.domainId, rollup.day, d.messages, d.passed, d.quarantined, d.rejected, d.spfAligned, d.dkimAligned);
      }
      for (const values of countryValues(ctx, rollup)) countries.add(values);
      for (const x of rollup.sources) sources.push({ ctx, day: rollup.day, policyDomain, x });
    }
    countries.end();
    // rows go in as they are made (sqlite-rows.ts), never all held at once
    sources.sort((a, b) => compare(a.ctx.orgId, b.ctx.orgId) || a.day - b.day || compare(a.x.sourceIp, b.x.sourceIp));
    const senders = new RowRunner(s.upsertSenderDays, UPSERT_ROWS, SENDER_DAY_COLUMNS);
    for (let i = 0; i < sources.length; i++) {
      const { ctx, day, policyDomain, x } = sources[i]!;
      senders.add(senderDayValues(ctx, day, policyDomain, x));
      // each source's row is garbage once written: memory stays near what is live
      if (large && i % 1024 === 1023) collectWhenGrown();
    }
    senders.end();
    // the organizations whose sender rows changed (sorted by organization, then day): their kept
    // answers go; the sums of their settled days stay kept when the oldest day written is recent
    const recent = unsettledFrom();
    for (let i = 0; i < sources.length; i++) {
      const { ctx, day } = sources[i]!;
      if (i === 0 || ctx.orgId !== sources[i - 1]!.ctx.orgId) (day >= recent ? s.raiseVersionUnsettled : s.raiseVersion).run(ctx.orgId);
    }
    if (large) collectWhenGrown();
    for (const values of selectors) s.upsertSelector.run(...values);
  };
  const writeRollup = (write: AggregateWrite) => {
    const rollup = takeRollup(write);
    if (!rollup) return;
    const deferred: DeferredRollup = { ctx: write.ctx, policyDomain: write.head.policy.domain, rollup };
    if (options.deferRollups) options.deferRollups(deferred);
    else writeRollups([deferred], write.ctx.large);
  };
  return {
    async beginAggregate(ctx: WriteContext, head: AggregateHead, whole?: AggregateRecord[]): Promise<AggregateWrite | StoredReport> {
      const existing = s.findAggregate.get(ctx.orgId, head.reporterOrg, head.reportId, head.policy.domain) as { id: string; recordCount: number; messageCount: number } | null;
      if (existing) return { ...existing, duplicate: true };
      const id = crypto.randomUUID();
      const p = head.policy;
      const counts = initialCounts(whole);
      const { seq } = s.insertAggregate.get(
        id, ctx.orgId, ctx.domainId, p.domain, head.reporterOrg, head.reporterEmail, head.reporterContact, head.reportId, head.generator, head.version, head.dmarcbis ? 1 : 0,
        epoch(head.dateBegin), epoch(head.dateEnd), p.adkim, p.aspf, p.p, p.sp, p.np, p.pct, p.fo, p.testing, p.discoveryMethod,
        jsonList(head.reporterErrors), counts.recordCount, counts.messageCount, counts.passCount, ctx.source, ctx.fileName, epoch(ctx.now),
      ) as { seq: number };
      return newAggregateWrite(id, seq, ctx, head, whole !== undefined);
    },

    async addAggregateRecords(write: AggregateWrite, records: AggregateRecord[]): Promise<void> {
      const { seq, ctx, geo } = write;
      const policyDomain = write.head.policy.domain;
      tallyBatch(write, records);
      // rows go in RECORD_ROWS at a time (sqlite-rows.ts): no array per row, no slices
      const rows = new RowRunner(s.insertRecords, RECORD_ROWS, RECORD_COLUMNS);
      for (let i = 0; i < records.length; i++) {
        const r = records[i]!;
        const where = geo.get(r.sourceIp)!;
        const [headerFrom, envelopeFrom] = storedFroms(r.headerFrom, r.envelopeFrom, policyDomain);
        row[0] = seq;
        row[1] = ctx.orgId;
        row[2] = r.sourceIp;
        row[3] = r.count;
        row[4] = r.disposition;
        row[5] = r.dkimAligned;
        row[6] = r.spfAligned;
        row[7] = recordPassesDmarc(r) ? 1 : 0;
        row[8] = headerFrom;
        row[9] = envelopeFrom;
        row[10] = r.envelopeTo;
        row[11] = jsonList(r.reasons);
        row[12] = where.country;
        row[13] = where.city;
        row[14] = dkimResultsText(r.dkimResults, r.headerFrom);
        row[15] = spfResultsText(r.spfResults, r.headerFrom);
        rows.add(row);
      }
      rows.end();
      if (addToRollup(write, records)) writeRollup(write);
    },

    async finishAggregate(write: AggregateWrite): Promise<StoredReport> {
      writeRollup(write);
      if (!write.countsWritten) s.setAggregateCounts.run(write.recordCount, write.messageCount, write.passCount, write.id);
      return { id: write.id, duplicate: false, recordCount: write.recordCount, messageCount: write.messageCount };
    },

    async writeFailure(ctx: WriteContext, report: FailureReport): Promise<StoredReport> {
      const existing = s.findFailure.get(ctx.orgId, report.reporterOrg, report.reportId, report.domain) as { id: string } | null;
      if (existing) return { id: existing.id, duplicate: true, recordCount: 1, messageCount: 1 };
      const id = crypto.randomUUID();
      const country = report.sourceIp ? locateIp(report.sourceIp).country : null;
      s.insertFailure.run(
        id, ctx.orgId, ctx.domainId, report.domain, report.reporterOrg, report.reportId, report.feedbackType, report.authFailure, report.sourceIp, country,
        report.arrivalDate ? epoch(report.arrivalDate) : null, report.authenticationResults, report.identityAlignment, report.deliveryResult, report.dkimDomain,
        report.dkimSelector, report.spfDns, report.originalMailFrom, report.originalRcptTo, report.originalFrom, report.originalSubject, report.originalMessageId,
        report.originalHeaders, report.plainText ? 1 : 0, ctx.source, ctx.fileName, epoch(ctx.now),
      );
      return { id, duplicate: false, recordCount: 1, messageCount: 1 };
    },

    async writeTls(ctx: WriteContext, report: TlsReport, policyDomain: string, policies: TlsPolicyResult[]): Promise<StoredReport> {
      const existing = s.findTls.get(ctx.orgId, report.reporterOrg, report.reportId, policyDomain) as { id: string; sessions: number } | null;
      if (existing) return { id: existing.id, duplicate: true, recordCount: policies.length, messageCount: existing.sessions };
      const id = crypto.randomUUID();
      const { successful, failed } = tlsTotals(policies);
      s.insertTls.run(id, ctx.orgId, ctx.domainId, policyDomain, report.reporterOrg, report.reportId, report.contactInfo, epoch(report.dateBegin), epoch(report.dateEnd), successful, failed, JSON.stringify(policies), ctx.source, ctx.fileName, epoch(ctx.now));
      return { id, duplicate: false, recordCount: policies.length, messageCount: successful + failed };
    },

    async writeRollups(rollups: DeferredRollup[]): Promise<void> {
      writeRollups(rollups);
    },
  };
}
