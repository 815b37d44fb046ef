/**
 * Retention: each organisation keeps aggregate reports (their records and auth results) for its
 * `retentionAggregateDays` and failure reports for its `retentionFailureDays` (Settings; 400 and
 * 90 days until changed). A scheduled purge deletes what is older in small batches — one short
 * write per batch, the event loop free between them — so requests keep being served while it
 * runs. The daily roll-ups (`daily_domain_stats`, `daily_sender_stats`, …) are never touched: the
 * long-term trends outlive the rows they were counted from.
 *
 * Age: an aggregate record counts from its report's `date_begin` (the roll-up day rule); a
 * failure report from its arrival date, or when it was processed if the report gave none.
 * One node runs the purge: each round is claimed with a lease (`src/db/leases.ts`).
 */
import { and, eq, inArray, lt, sql } from "drizzle-orm";
import type { ServiceContext } from "../../http/access";
import { claimLease } from "../../db/leases";
import { periodic } from "../../lib/periodic";
import { savedRetention } from "../settings/service";
import { recordAudit, SYSTEM_ACTOR } from "../audit/service";
import { retentionDeleted } from "../metrics/registry";
import { raiseRollupVersion } from "./read-cache";

/** Rows deleted per write: small enough that no write holds the database for long. */
export const PURGE_BATCH = 5000;
/** How often a node tries to claim the purge (and how long the claim lasts). */
export const PURGE_INTERVAL_SECONDS = 3600;
const LEASE_KEY = "retention-purge";

export interface PurgeResult {
  aggregateReports: number;
  aggregateRecords: number;
  failureReports: number;
  /** organisations that had something deleted */
  organizations: number;
}

type PurgeContext = Pick<ServiceContext, "store" | "now" | "log">;

/** Gives the event loop back between batches (other requests and writes run there). */
const breathe = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

/** Runs `deleteBatch` (one write each, answering how many rows it deleted) until it deletes none; the total. */
async function inBatches(ctx: PurgeContext, deleteBatch: (tx: PurgeContext["store"]["db"]) => Promise<number>): Promise<number> {
  let total = 0;
  for (;;) {
    const n = await ctx.store.write(deleteBatch);
    if (!n) return total;
    total += n;
    await breathe();
  }
}

/**
 * Deletes every organisation's rows older than its retention. `batch` rows (records, reports,
 * failure reports) go per write.
 */
export async function purgeExpired(ctx: PurgeContext, options: { batch?: number } = {}): Promise<PurgeResult> {
  const batch = Math.max(1, options.batch ?? PURGE_BATCH);
  const { store } = ctx;
  const { aggregateReports: reports, aggregateRecords: records, failureReports: failures } = store.t;
  const now = Math.floor(ctx.now().getTime() / 1000);
  const { defaults, byOrg } = await savedRetention(ctx);
  const orgRows = await store.rows<{ org_id: string }>(sql`SELECT DISTINCT org_id FROM aggregate_reports UNION SELECT DISTINCT org_id FROM failure_reports`);
  const total: PurgeResult = { aggregateReports: 0, aggregateRecords: 0, failureReports: 0, organizations: 0 };

  for (const { org_id: orgId } of orgRows) {
    const retention = byOrg.get(orgId) ?? defaults;
    const aggregateCutoff = new Date((now - retention.retentionAggregateDays * 86_400) * 1000);
    const failureCutoff = now - retention.retentionFailureDays * 86_400;
    const done = { aggregateReports: 0, aggregateRecords: 0, failureReports: 0 };

    // records first (those of the reports to go), a batch per write, so no cascade deletes a million rows at once
    done.aggregateRecords = await inBatches(ctx, async (tx) => {
      const ids = (
        await tx
          .select({ id: records.id })
          .from(reports)
          .innerJoin(records, and(eq(records.orgId, reports.orgId), eq(records.reportSeq, reports.seq)))
          .where(and(eq(reports.orgId, orgId), lt(reports.dateBegin, aggregateCutoff)))
          .limit(batch)
      ).map((r) => Number(r.id));
      if (ids.length) {
        await tx.delete(records).where(and(eq(records.orgId, orgId), inArray(records.id, ids)));
        // the sender page keeps sample records (read-cache.ts): none outlives its purge
        await raiseRollupVersion(ctx.store, orgId);
      }
      return ids.length;
    });
    done.aggregateReports = await inBatches(ctx, async (tx) => {
      const ids = (await tx.select({ id: reports.id }).from(reports).where(and(eq(reports.orgId, orgId), lt(reports.dateBegin, aggregateCutoff))).limit(batch)).map((r) => r.id);
      if (ids.length) await tx.delete(reports).where(and(eq(reports.orgId, orgId), inArray(reports.id, ids)));
      return ids.length;
    });
    done.failureReports = await inBatches(ctx, async (tx) => {
      const older = sql`COALESCE(${failures.arrivalDate}, ${failures.processedAt}) < ${failureCutoff}`;
      const ids = (await tx.select({ id: failures.id }).from(failures).where(and(eq(failures.orgId, orgId), older)).limit(batch)).map((r) => r.id);
      if (ids.length) await tx.delete(failures).where(and(eq(failures.orgId, orgId), inArray(failures.id, ids)));
      return ids.length;
    });

    if (done.aggregateRecords || done.aggregateReports || done.failureReports) {
      total.organizations++;
      total.aggregateReports += done.aggregateReports;
      total.aggregateRecords += done.aggregateRecords;
      total.failureReports += done.failureReports;
      retentionDeleted.inc({ table: "aggregate_records" }, done.aggregateRecords);
      retentionDeleted.inc({ table: "aggregate_reports" }, done.aggregateReports);
      retentionDeleted.inc({ table: "failure_reports" }, done.failureReports);
      await recordAudit(ctx, { orgId, actor: SYSTEM_ACTOR, action: "retention.purged", data: { ...done, aggregateDays: retention.retentionAggregateDays, failureDays: retention.retentionFailureDays } });
    }
  }
  return total;
}

/**
 * Every `intervalSeconds` (and once at start) this node tries to claim the purge; the node that
 * holds the lease runs it. Returns the job, to stop on shutdown.
 */
export function startRetentionPurge(deps: PurgeContext, intervalSeconds = PURGE_INTERVAL_SECONDS, onDone?: (result: PurgeResult, ms: number) => void): { stop(): Promise<void> } {
  // checked every minute: a node that did not hold the lease takes over within a minute of it lapsing
  return periodic({
    everyMs: Math.min(intervalSeconds, 60) * 1000,
    firstAfterMs: "now",
    async run() {
      if (!(await claimLease(deps.store, LEASE_KEY, intervalSeconds, deps.now()))) return;
      const t0 = performance.now();
      const result = await purgeExpired(deps);
      const ms = Math.round(performance.now() - t0);
      if (result.organizations) deps.log.info("retention_purged", { ...result, ms });
      onDone?.(result, ms);
    },
    onError: (error) => deps.log.error("retention_purge_failed", { error: error instanceof Error ? error.message : String(error) }),
  });
}
