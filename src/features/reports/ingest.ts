/**
 * The one ingestion entry point every path in uses (upload, CLI, SMTP, IMAP, seed-demo).
 * Stable contract: the mail receiver and the IMAP poller code against `ingestFile`.
 *
 * parse (pure, bounded) → route every report to one of the organisation's domains →
 * write the whole file in one transaction → start reverse-DNS enrichment in the background.
 * A refused file leaves the database exactly as it was.
 */
import { ingestFailures, recordsIngested, reportsIngested } from "../metrics/registry";
import type { ServiceContext } from "../../http/access";
import type { WriteOptions } from "../../db/store";
import { collectWhenGrown, isLargeReport, largeWriteBegun } from "../../lib/memory";
import { DEFAULT_LIMITS, ReportRefusedError, type AggregateReport, type ParsedReport, type ReportLimits, type TlsPolicyResult } from "../../lib/reports/model";
import { parseReportFile, type ParsedFile } from "../../lib/reports/parse";
import { matchOwnedDomain, type OwnedDomain } from "../../lib/reports/routing";
import { recordReportEvents } from "../alerts/report-events";
import { domainNamesOf, holdDomainRows, recordReportArrival } from "../domains/service";
import { holdRollupVersion } from "./read-cache";
import { scheduleReverseDns, type EnrichmentTarget } from "./reverse-dns";
import type { ReportSource } from "./sources";
import { reportWriter, type AggregateWrite, type ReportWriter, type StoredReport, type WriteContext } from "./store";
import { maybeStreamable, NotStreamable, ParseCrashed, streamAggregate, streamAggregateOnWorker, worthAWorker } from "./streamed-write";

/** where the file came in (src/features/reports/sources.ts names each for the interface) */
export type IngestSource = ReportSource;
export type IngestStatus = "ingested" | "duplicate" | "rejected";
export type ReportKind = "aggregate" | "failure" | "tls";

export interface IngestInput {
  /** the organisation the file is ingested for (from the session, CLI --org, or the mail address) */
  orgId: string;
  fileName: string;
  /** raw bytes: XML, JSON, gzip, zip or a whole e-mail message — detected by content */
  bytes: Uint8Array;
  source: IngestSource;
  /** the file already parsed elsewhere (the CLI parses on a worker thread): its reports, or why it was refused */
  parsed?: ParsedFile | Error;
}

export interface IngestedReportSummary {
  id: string;
  domain: string;
  /** the reporting organisation (report_metadata org_name) */
  orgName: string;
  reportId: string;
  recordCount: number;
  messageCount: number;
}

export interface IngestResult {
  fileName: string;
  status: IngestStatus;
  kind: ReportKind | null;
  reports: IngestedReportSummary[];
  /** why the file was refused (status "rejected"), in words a user can act on */
  error?: string;
  /**
   * machine-readable reason when rejected: "too_large" means HTTP 413 applies; "unavailable"
   * means the file itself is fine but could not be stored right now (try again later: mail
   * transports answer with a temporary failure and keep the message)
   */
  code?: "too_large" | "invalid" | "unknown_format" | "foreign_domain" | "empty" | "unavailable";
}

/** Report size bounds, from config when set there (flags in src/config.ts), and the clock report dates are checked against. */
export function reportLimits(deps: ServiceContext): ReportLimits {
  const mb = Number(deps.config.maxReportMb);
  const records = Number(deps.config.maxRecordsPerReport);
  return {
    ...DEFAULT_LIMITS,
    ...(Number.isFinite(mb) && mb > 0 ? { maxInputBytes: mb * 1024 * 1024 } : {}),
    ...(Number.isInteger(records) && records > 0 ? { maxRecords: records } : {}),
    now: deps.now().getTime(),
  };
}

export interface Planned {
  report: ParsedReport;
  domain: OwnedDomain;
  policyDomain: string;
  tlsPolicies?: TlsPolicyResult[];
}

export interface Stored {
  planned: Planned;
  row: StoredReport;
  /** from one large report's file (WriteContext.large): its report events and reverse DNS keep memory near what is live */
  large: boolean;
  /** the report's source addresses, when its records were not kept (a streamed report) */
  ips?: string[];
}

/** A report for a domain the organisation does not have: the whole file is refused. */
class ForeignDomain extends Error {}

function foreignDomainMessage(policyDomain: string, owned: OwnedDomain[]): string {
  return owned.length === 0
    ? `The report is for ${policyDomain}, but this organization has no domains yet. Add ${policyDomain} under Domains, then upload the report again.`
    : `The report is for ${policyDomain}, which is not one of this organization's domains. Add it under Domains, or upload the report in the organization that owns it.`;
}

const domainsOf = (report: ParsedReport): string[] =>
  report.kind === "aggregate" ? [report.policy.domain] : report.kind === "failure" ? [report.domain] : [...new Set(report.policies.map((p) => p.policyDomain))];

/** When a stored report says mail was last seen for its domain: its period's end (a failure report's arrival), never later than now. */
function reportedAt(report: ParsedReport, now: Date): Date {
  const at = report.kind === "failure" ? (report.arrivalDate ?? now) : report.dateEnd;
  return at.getTime() < now.getTime() ? at : now;
}

/**
 * Ingests one file for the organisation `input.orgId` names. Callers without a signed-in user
 * (CLI, SMTP, IMAP, seed-demo) pass the id they resolved themselves; the upload route passes
 * its actor's organisation.
 */
export async function ingestFile(deps: ServiceContext, input: IngestInput): Promise<IngestResult> {
  const limits = reportLimits(deps);
  if (!input.parsed && maybeStreamable(input.bytes, limits)) {
    const streamed = await ingestStreamed(deps, input, limits, rejecter(deps, input));
    if (streamed) return streamed;
  }

  const prepared = await prepareFile(deps, input, await domainNamesOf(deps, input.orgId));
  if (!("plan" in prepared)) return prepared;
  const now = deps.now();
  let stored: Stored[];
  try {
    const writer = reportWriter(deps.store);
    stored = await deps.store.write(() => writePrepared(deps, writer, prepared, now), reportWrites(input.orgId));
  } catch (error) {
    return writeFailed(deps, prepared, error);
  }
  return afterWrite(deps, input, prepared.kind, stored);
}

type Rejecter = (error: string, code: IngestResult["code"], kind?: ReportKind | null) => IngestResult;

/** The answer for a refused file (logged and counted). */
function rejecter(deps: ServiceContext, input: IngestInput): Rejecter {
  return (error, code, kind = null) => {
    deps.log.info("reports.rejected", { fileName: input.fileName, source: input.source, code, reason: error });
    ingestFailures.inc({ reason: code ?? "invalid", source: input.source });
    return { fileName: input.fileName, status: "rejected", kind, reports: [], error, code };
  };
}

/** A file parsed and routed, ready to be written: every report with the domain it is stored under. */
export interface PreparedFile {
  input: IngestInput;
  kind: ReportKind;
  plan: Planned[];
  /** aggregate records in the file */
  records: number;
  /** the file is one large report's or more (src/lib/memory.ts), and not part of a bulk ingest */
  large: boolean;
}

/**
 * Parses (unless `input.parsed` holds the outcome) and routes a file to the organisation's
 * domains `owned`: the file ready to write, or the answer refusing it. Writes nothing. `bulk`:
 * the file is one of a bulk ingest's, never large (its throughput comes first).
 */
export async function prepareFile(deps: ServiceContext, input: IngestInput, owned: OwnedDomain[], bulk = false): Promise<PreparedFile | IngestResult> {
  const rejected = rejecter(deps, input);
  let reports: ParsedReport[];
  try {
    const parsed = input.parsed ?? (await parseReportFile(input.bytes, reportLimits(deps)));
    if (parsed instanceof Error) throw parsed;
    reports = parsed.reports;
  } catch (error) {
    if (error instanceof ReportRefusedError) return rejected(error.message, error.code);
    deps.log.error("reports.parse_crashed", { fileName: input.fileName, error });
    return rejected("The file could not be read as a report.", "invalid");
  }
  const kind = reports[0]!.kind;

  // Route every report before writing anything: one foreign report refuses the whole file.
  const plan: Planned[] = [];
  let records = 0;
  for (const report of reports) {
    if (report.kind === "aggregate") records += report.records.length;
    for (const policyDomain of domainsOf(report)) {
      const domain = matchOwnedDomain(policyDomain, owned);
      if (!domain) {
        return rejected(foreignDomainMessage(policyDomain, owned), "foreign_domain", kind);
      }
      plan.push({ report, domain, policyDomain, tlsPolicies: report.kind === "tls" ? report.policies.filter((p) => p.policyDomain === policyDomain) : undefined });
    }
  }
  return { input, kind, plan, records, large: !bulk && isLargeReport(records) };
}

/**
 * The store.write options of a write of an organization's reports: they wait for each other in
 * this process (WriteOptions.queue), as each takes the same rows at its start (holdForReportWrite).
 */
export const reportWrites = (orgId: string): WriteOptions => ({ queue: `reports:${orgId}` });

/**
 * The first statements of a write of reports (PostgreSQL; nothing on SQLite): the rows its end
 * updates — its domains' (their report arrival), then, when it writes aggregate reports, the
 * organization's roll-up version — taken at its start, so that a shorter write changing them
 * meanwhile waits for it rather than making it fail and run again whole (holdDomainRows,
 * holdRollupVersion). Domains first, as a domain's removal takes them (then the version, through
 * the roll-ups it deletes).
 */
export async function holdForReportWrite(deps: ServiceContext, orgId: string, domainIds: readonly string[], rollups: boolean): Promise<void> {
  await holdDomainRows(deps, orgId, domainIds);
  if (rollups) await holdRollupVersion(deps.store, orgId);
}

/** Notes that a report about `domainId` arrived at `at` in `arrivals` (the latest per domain). */
export function noteArrival(arrivals: Map<string, Date>, domainId: string, at: Date): void {
  const before = arrivals.get(domainId);
  if (!before || before < at) arrivals.set(domainId, at);
}

/**
 * Writes a prepared file's reports; call inside `store.write` (database work only: PostgreSQL
 * may run it again). Each domain's report arrival is written with them, or, given `arrivals`,
 * noted there for the caller to write (bulk ingest writes a group's once, see group-ingest.ts).
 */
export async function writePrepared(deps: ServiceContext, writer: ReportWriter, prepared: PreparedFile, now: Date, arrivals?: Map<string, Date>): Promise<Stored[]> {
  const { input } = prepared;
  const written: Stored[] = [];
  const noted = arrivals ?? new Map<string, Date>();
  // the file's own write (a bulk group holds its files' rows once, at its start)
  if (!arrivals) await holdForReportWrite(deps, input.orgId, prepared.plan.map((p) => p.domain.id), prepared.kind === "aggregate");
  for (const planned of prepared.plan) {
    const ctx: WriteContext = { orgId: input.orgId, domainId: planned.domain.id, source: input.source, fileName: input.fileName, now, large: prepared.large };
    const r = planned.report;
    const row = r.kind === "aggregate" ? await writer.writeAggregate(ctx, r) : r.kind === "failure" ? await writer.writeFailure(ctx, r) : await writer.writeTls(ctx, r, planned.policyDomain, planned.tlsPolicies!);
    written.push({ planned, row, large: prepared.large });
    if (!row.duplicate) noteArrival(noted, planned.domain.id, reportedAt(r, now));
  }
  if (!arrivals) for (const [domainId, at] of noted) await recordReportArrival(deps, domainId, at);
  return written;
}

/** The answer for a prepared file whose write failed: nothing of it was saved. */
export function writeFailed(deps: ServiceContext, prepared: PreparedFile, error: unknown): IngestResult {
  deps.log.error("reports.write_failed", { fileName: prepared.input.fileName, error });
  return rejecter(deps, prepared.input)("The report could not be stored right now; nothing was saved. Please try again in a few minutes.", "unavailable", prepared.kind);
}

/**
 * One aggregate report file stored as it is decompressed and parsed, in batches inside the
 * file's one transaction (a refusal half-way leaves nothing): memory holds a batch, never the
 * report. Null when the file is not one aggregate XML document (the whole-file path reads it).
 */
async function ingestStreamed(deps: ServiceContext, input: IngestInput, limits: ReportLimits, rejected: Rejecter): Promise<IngestResult | null> {
  // a large report's write is under way from its first batch to its answer (src/lib/memory.ts)
  const writing: LargeWrite = { end: null };
  try {
    return await ingestStreamedWrite(deps, input, limits, rejected, writing);
  } finally {
    writing.end?.();
  }
}

interface LargeWrite {
  /** ends the mark, once the report is known to be large */
  end: (() => void) | null;
}

async function ingestStreamedWrite(
  deps: ServiceContext,
  input: IngestInput,
  limits: ReportLimits,
  rejected: Rejecter,
  writing: LargeWrite,
): Promise<IngestResult | null> {
  const owned: OwnedDomain[] = await domainNamesOf(deps, input.orgId);
  const now = deps.now();
  let stored: Stored;
  try {
    const writer = reportWriter(deps.store);
    // the body may run again on PostgreSQL (serialization failure): it starts from the bytes each time
    stored = await deps.store.write(async () => {
      let write: AggregateWrite | null = null;
      let duplicate: StoredReport | null = null;
      let domain: OwnedDomain | null = null;
      // a report that does not end within the reader's first batch is large (src/lib/memory.ts)
      let large = false;
      const ips = new Set<string>();
      const read = worthAWorker(input.bytes) ? streamAggregateOnWorker : streamAggregate;
      const result = await read(input.bytes, limits, {
        async head(head, whole) {
          domain = matchOwnedDomain(head.policy.domain, owned);
          if (!domain) throw new ForeignDomain(foreignDomainMessage(head.policy.domain, owned));
          large = whole === undefined;
          if (large) writing.end ??= largeWriteBegun();
          await holdForReportWrite(deps, input.orgId, [domain.id], true);
          const begun = await writer.beginAggregate({ orgId: input.orgId, domainId: domain.id, source: input.source, fileName: input.fileName, now, large }, head, whole);
          if ("geo" in begun) write = begun;
          else duplicate = begun;
          return write !== null;
        },
        async records(batch) {
          for (const r of batch) ips.add(r.sourceIp);
          await writer.addAggregateRecords(write!, batch);
        },
      });
      const report: AggregateReport = { ...result.head, records: [] };
      const row = write ? await writer.finishAggregate(write) : duplicate!;
      if (!row.duplicate) await recordReportArrival(deps, domain!.id, reportedAt(report, now));
      return { planned: { report, domain: domain!, policyDomain: report.policy.domain }, row, ips: [...ips], large };
    }, reportWrites(input.orgId));
  } catch (error) {
    if (error instanceof NotStreamable) return null;
    if (error instanceof ReportRefusedError) return rejected(error.message, error.code);
    if (error instanceof ForeignDomain) return rejected(error.message, "foreign_domain", "aggregate");
    if (error instanceof ParseCrashed) {
      deps.log.error("reports.parse_crashed", { fileName: input.fileName, error });
      return rejected("The file could not be read as a report.", "invalid");
    }
    deps.log.error("reports.write_failed", { fileName: input.fileName, error });
    return rejected("The report could not be stored right now; nothing was saved. Please try again in a few minutes.", "unavailable", "aggregate");
  }
  // what a large report's write left behind is garbage before its events and reverse DNS make more
  if (stored.large) collectWhenGrown();
  return afterWrite(deps, input, "aggregate", [stored]);
}

/**
 * After stored reports' write (one file's, or a bulk-ingest group's): the report events (new
 * failing sources, pass rate, failure reports, "reports stopped" cleared) of the organisation's
 * domains that got new reports, in their own write.
 * Each domain's conditions are evaluated once, on what is stored now.
 */
export async function afterReportsStored(deps: ServiceContext, orgId: string, stored: Stored[]): Promise<void> {
  const fresh = stored.filter((s) => !s.row.duplicate);
  if (!fresh.length) return;
  const events = await recordReportEvents(
    deps,
    orgId,
    fresh.map(({ planned, row, large }) => ({
      domain: { id: planned.domain.id, name: planned.domain.name },
      large,
      kind: planned.report.kind,
      reportId: row.id,
      failure: planned.report.kind === "failure" ? { sourceIp: planned.report.sourceIp, reporter: planned.report.reporterOrg } : undefined,
    })),
  );
  if (events.length) deps.alertsQueued?.();
}

/**
 * After one file's write: its report events (new failing sources, pass rate, failure reports)
 * in their own write, right after, then the rest (finishStored).
 */
async function afterWrite(deps: ServiceContext, input: IngestInput, kind: ReportKind, stored: Stored[]): Promise<IngestResult> {
  await afterReportsStored(deps, input.orgId, stored);
  return finishStored(deps, input, kind, stored);
}

/**
 * After a file's write and its report events (afterReportsStored, run per file or once for a
 * bulk-ingest group): reverse DNS, metrics, the answer.
 */
export function finishStored(deps: ServiceContext, input: IngestInput, kind: ReportKind, stored: Stored[]): IngestResult {
  const targets: EnrichmentTarget[] = [];
  for (const { planned, row, ips, large } of stored) {
    if (row.duplicate) continue;
    const r = planned.report;
    if (r.kind === "aggregate") targets.push({ table: "aggregate", orgId: input.orgId, reportRowId: row.id, ips: ips ?? [...new Set(r.records.map((x) => x.sourceIp))], large });
    else if (r.kind === "failure" && r.sourceIp) targets.push({ table: "failure", orgId: input.orgId, reportRowId: row.id, ips: [r.sourceIp] });
  }
  scheduleReverseDns(deps, targets);

  const status: IngestStatus = stored.some((s) => !s.row.duplicate) ? "ingested" : "duplicate";
  deps.log.info("reports.ingested", { fileName: input.fileName, source: input.source, status, kind, reports: stored.length });
  for (const { row } of stored) {
    if (row.duplicate) continue;
    reportsIngested.inc({ kind, source: input.source });
    if (kind === "aggregate") recordsIngested.inc({ source: input.source }, row.recordCount);
  }
  return {
    fileName: input.fileName,
    status,
    kind,
    reports: stored.map(({ planned, row }) => ({
      id: row.id,
      domain: planned.policyDomain,
      orgName: planned.report.reporterOrg,
      reportId: planned.report.reportId,
      recordCount: row.recordCount,
      messageCount: row.messageCount,
    })),
  };
}
