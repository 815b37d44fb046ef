/**
 * Writes parsed reports: the ingest hot path. One store interface, one adapter per database:
 * `store.sqlite.ts` keeps bun:sqlite prepared statements (drizzle's builder costs more than the
 * insert itself at tens of thousands of records), `store.postgres.ts` sends multi-row inserts.
 * Every method runs inside the caller's `store.write`, so one file's reports are written in
 * one transaction: all of them or none. A report already stored for the organisation (same
 * reporter, report id and policy domain) is not written again and comes back as a duplicate.
 */
import type { StoreCore } from "../../db/store";
import type { Store } from "../../db";
import { recordPassesDmarc } from "../../lib/reports/aggregate";
import type { AggregateHead } from "../../lib/reports/aggregate";
import type { AggregateRecord, AggregateReport, FailureReport, TlsPolicyResult, TlsReport } from "../../lib/reports/model";
import { locateIp, type GeoLocation } from "./geo";
import { addRecordsToRollup, emptyRollup, type ReportRollup, type RollupCounts, type SelectorRow, type SourceRollup } from "./rollups";
import { postgresReportWriter } from "./store.postgres";
import { sqliteReportWriter } from "./store.sqlite";

export interface WriteContext {
  orgId: string;
  domainId: string;
  source: string;
  fileName: string;
  now: Date;
  /** one large report (src/lib/memory.ts LARGE_REPORT_RECORDS): its write keeps memory near what is live; never in a bulk ingest */
  large?: boolean;
}

export interface StoredReport {
  id: string;
  duplicate: boolean;
  recordCount: number;
  messageCount: number;
}

/**
 * An aggregate report being written: its row is in (with its counts still zero), its records
 * come in batches, `finishAggregate` sets its counts. A report of any size is written this way
 * without ever being held whole (see streamed-write.ts).
 */
export interface AggregateWrite {
  id: string;
  /** the report's integer key, which its records carry */
  seq: number;
  ctx: WriteContext;
  head: AggregateHead;
  /** the report's source addresses located so far (country, city), kept across batches */
  geo: Map<string, GeoLocation>;
  recordCount: number;
  messageCount: number;
  passCount: number;
  /** the roll-up of the records added and not yet written (see addToRollup), and its sources by address */
  rollup: ReportRollup | null;
  rollupSources: Map<string, SourceRollup>;
  /** the row was inserted with its final counts (the whole report was known) */
  countsWritten: boolean;
}

export interface ReportWriter {
  /**
   * The report's row, or the stored one's summary (`duplicate`) when it is stored already.
   * `whole`: every record of the report, when known, so the row gets its counts at once.
   */
  beginAggregate(ctx: WriteContext, head: AggregateHead, whole?: AggregateRecord[]): Promise<AggregateWrite | StoredReport>;
  /** The next records of the report, with their roll-ups. */
  addAggregateRecords(write: AggregateWrite, records: AggregateRecord[]): Promise<void>;
  finishAggregate(write: AggregateWrite): Promise<StoredReport>;
  writeAggregate(ctx: WriteContext, report: AggregateReport): Promise<StoredReport>;
  writeFailure(ctx: WriteContext, report: FailureReport): Promise<StoredReport>;
  writeTls(ctx: WriteContext, report: TlsReport, policyDomain: string, policies: TlsPolicyResult[]): Promise<StoredReport>;
  /** Writes roll-ups that a writer made with `deferRollups` handed over (see DeferredRollup). */
  writeRollups(rollups: DeferredRollup[]): Promise<void>;
  /**
   * A whole report written at once where the writer has a quicker way than beginAggregate and
   * the rest (PostgreSQL: a small report's row and records in one statement); null to take those.
   */
  writeWholeAggregate?(ctx: WriteContext, report: AggregateReport): Promise<StoredReport | null>;
}

/**
 * A report's roll-up not written with it but handed to `deferRollups` (bulk ingest): the group
 * writes its files' roll-ups once, merged, at the end of its transaction (group-ingest.ts).
 */
export interface DeferredRollup {
  ctx: WriteContext;
  policyDomain: string;
  rollup: ReportRollup;
}

export interface ReportWriterOptions {
  /** takes each roll-up instead of writing it; the caller writes them with `writeRollups` in the same transaction */
  deferRollups?: (rollup: DeferredRollup) => void;
}

/** The active database's writer; call its methods inside `store.write`. */
export function reportWriter(store: StoreCore, options: ReportWriterOptions = {}): ReportWriter {
  const sqlite = (store as Store).sqlite;
  const writer = store.dialect === "sqlite" && sqlite ? sqliteReportWriter(sqlite, options) : postgresReportWriter(store, options);
  return {
    ...writer,
    async writeAggregate(ctx, report) {
      const whole = await writer.writeWholeAggregate?.(ctx, report);
      if (whole) return whole;
      const { records, ...head } = report;
      const write = await writer.beginAggregate(ctx, head, records);
      if (!("geo" in write)) return write;
      for (let i = 0; i < records.length; i += WRITE_BATCH) await writer.addAggregateRecords(write, records.length <= WRITE_BATCH ? records : records.slice(i, i + WRITE_BATCH));
      return writer.finishAggregate(write);
    },
  };
}

/** records written per call of addAggregateRecords when a whole report is written */
const WRITE_BATCH = 5000;

/** A new AggregateWrite for the report row `id`. */
export const newAggregateWrite = (id: string, seq: number, ctx: WriteContext, head: AggregateHead, countsWritten: boolean): AggregateWrite => ({
  id, seq, ctx, head, geo: new Map(), recordCount: 0, messageCount: 0, passCount: 0, rollup: null, rollupSources: new Map(), countsWritten,
});

/** The counts a report row starts with: its final ones when every record is known, else zero until finishAggregate. */
export function initialCounts(whole: AggregateRecord[] | undefined): { recordCount: number; messageCount: number; passCount: number } {
  return whole ? { recordCount: whole.length, ...aggregateTotals({ records: whole }) } : { recordCount: 0, messageCount: 0, passCount: 0 };
}

/**
 * Source rows a report's roll-up gathers before they are written: one upsert per source and day
 * for a whole report (not per batch), with memory bounded for a report of very many sources.
 */
export const ROLLUP_SOURCES_HELD = 50_000;

const earliest = (a: number | null, b: number | null) => (a === null ? b : b === null ? a : Math.min(a, b));
const latest = (a: number | null, b: number | null) => (a === null ? b : b === null ? a : Math.max(a, b));

function addCounts(into: RollupCounts, from: RollupCounts): void {
  into.messages += from.messages;
  into.passed += from.passed;
  into.quarantined += from.quarantined;
  into.rejected += from.rejected;
  into.spfAligned += from.spfAligned;
  into.dkimAligned += from.dkimAligned;
}

/**
 * Adds a batch of records to the write's roll-up (what daily_domain_stats, daily_sender_stats and
 * the other roll-ups get), merged as the upserts would merge them. True when the roll-up holds
 * ROLLUP_SOURCES_HELD sources or more: write it now (`takeRollup`).
 */
export function addToRollup(write: AggregateWrite, records: AggregateRecord[]): boolean {
  const held = (write.rollup ??= emptyRollup(write.head));
  addRecordsToRollup(held, write.rollupSources, write.head, records, (ip) => write.geo.get(ip) ?? null, write.ctx.now);
  return held.sources.length >= ROLLUP_SOURCES_HELD;
}

/** Adds `batch`'s domain totals and sources to `held` (`byIp`: held's sources by address), merged as the upserts would merge them; takes over batch's objects. */
function mergeSources(held: ReportRollup, byIp: Map<string, SourceRollup>, batch: ReportRollup): void {
  if (batch.domain) {
    if (held.domain) addCounts(held.domain, batch.domain);
    else held.domain = batch.domain;
  }
  for (const x of batch.sources) {
    const into = byIp.get(x.sourceIp);
    if (!into) {
      held.sources.push(x);
      byIp.set(x.sourceIp, x);
      continue;
    }
    addCounts(into, x);
    into.country ??= x.country;
    into.city ??= x.city;
    into.failedDelivered += x.failedDelivered;
    into.firstFailedAt = earliest(into.firstFailedAt, x.firstFailedAt);
    into.lastFailedAt = latest(into.lastFailedAt, x.lastFailedAt);
    into.lastBegin = Math.max(into.lastBegin, x.lastBegin);
    for (const [key, messages] of x.auth) into.auth.set(key, (into.auth.get(key) ?? 0) + messages);
  }
}

/**
 * Deferred roll-ups merged per organization, domain, day and policy domain (one upsert per key
 * instead of one per report), and, apart, their DKIM selectors merged per organization, domain,
 * signing domain and selector as the upserts would merge them (results summed, the latest period
 * start kept): one dkim_selectors_seen row each. The merged roll-ups carry no selectors. Takes
 * over the inputs' objects (they are not to be written again).
 */
export function mergeRollups(rollups: DeferredRollup[]): { merged: DeferredRollup[]; selectors: SelectorRow[] } {
  const merged = new Map<string, { entry: DeferredRollup; byIp: Map<string, SourceRollup> }>();
  const bySelector = new Map<string, [string, string, string, string, number, number]>();
  for (const d of rollups) {
    const { ctx, policyDomain, rollup } = d;
    for (const [key, results] of rollup.selectors) {
      const at = `${ctx.orgId}\n${ctx.domainId}\n${key}`;
      const into = bySelector.get(at);
      if (into) {
        into[4] = Math.max(into[4], rollup.begin);
        into[5] += results;
        continue;
      }
      const [authDomain, selector] = key.split("\n") as [string, string];
      bySelector.set(at, [ctx.orgId, ctx.domainId, authDomain, selector, rollup.begin, results]);
    }
    const key = `${ctx.orgId}\n${ctx.domainId}\n${rollup.day}\n${policyDomain}`;
    let into = merged.get(key);
    if (!into) {
      const copy: ReportRollup = { day: rollup.day, domain: null, sources: [], selectors: new Map(), begin: rollup.begin };
      merged.set(key, (into = { entry: { ctx, policyDomain, rollup: copy }, byIp: new Map() }));
    }
    mergeSources(into.entry.rollup, into.byIp, rollup);
  }
  return { merged: [...merged.values()].map((m) => m.entry), selectors: [...bySelector.values()] };
}

/** The roll-up gathered so far, to write; the write starts a new one. */
export function takeRollup(write: AggregateWrite): ReportRollup | null {
  const rollup = write.rollup;
  write.rollup = null;
  write.rollupSources.clear();
  return rollup;
}

/** Locates each new source address of `records` (cached in the write) and adds their counts to the write's. */
export function tallyBatch(write: AggregateWrite, records: AggregateRecord[]): void {
  for (const r of records) if (!write.geo.has(r.sourceIp)) write.geo.set(r.sourceIp, locateIp(r.sourceIp));
  const { messageCount, passCount } = aggregateTotals({ records });
  write.recordCount += records.length;
  write.messageCount += messageCount;
  write.passCount += passCount;
}

/** Messages and DMARC-passing messages of an aggregate report. */
export function aggregateTotals(report: Pick<AggregateReport, "records">): { messageCount: number; passCount: number } {
  let messageCount = 0;
  let passCount = 0;
  for (const r of report.records) {
    messageCount += r.count;
    if (recordPassesDmarc(r)) passCount += r.count;
  }
  return { messageCount, passCount };
}

/** Successful and failed sessions of a TLS report's policies. */
export function tlsTotals(policies: TlsPolicyResult[]): { successful: number; failed: number } {
  return { successful: policies.reduce((n, p) => n + p.successfulSessions, 0), failed: policies.reduce((n, p) => n + p.failedSessions, 0) };
}

/** JSON text of a list, or null when it is empty. */
export const jsonList = (list: unknown[]): string | null => (list.length ? JSON.stringify(list) : null);
