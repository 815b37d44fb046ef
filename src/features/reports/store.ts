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
import type { AggregateReport, FailureReport, TlsPolicyResult, TlsReport } from "../../lib/reports/model";
import { postgresReportWriter } from "./store.postgres";
import { sqliteReportWriter } from "./store.sqlite";

export interface WriteContext {
  orgId: string;
  domainId: string;
  source: string;
  fileName: string;
  now: Date;
}

export interface StoredReport {
  id: string;
  duplicate: boolean;
  recordCount: number;
  messageCount: number;
}

export interface ReportWriter {
  writeAggregate(ctx: WriteContext, report: AggregateReport): Promise<StoredReport>;
  writeFailure(ctx: WriteContext, report: FailureReport): Promise<StoredReport>;
  writeTls(ctx: WriteContext, report: TlsReport, policyDomain: string, policies: TlsPolicyResult[]): Promise<StoredReport>;
}

/** The active database's writer; call its methods inside `store.write`. */
export function reportWriter(store: StoreCore): ReportWriter {
  const sqlite = (store as Store).sqlite;
  return store.dialect === "sqlite" && sqlite ? sqliteReportWriter(sqlite) : postgresReportWriter(store);
}

/** Messages and DMARC-passing messages of an aggregate report. */
export function aggregateTotals(report: AggregateReport): { messageCount: number; passCount: number } {
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
