/**
 * PostgreSQL's planner statistics of the reports table kept in step with a fast-growing store.
 *
 * Every inserted record is checked against its report (the foreign key), and PostgreSQL plans
 * those checks once per connection and keeps the plan. Planned while the table it looks in was
 * nearly empty (a new database, the first import), such a check can read the table from end to
 * end, and keep doing so for every row inserted while the table grows: when records were checked
 * this way by their auth results (rows of their own then), the 200 of a 100-record report took
 * half a second after a few hundred reports.
 * Fresh statistics replace the kept plans on every connection. Autovacuum refreshes them about
 * once a minute at best; an import writes thousands of reports in that time, so the ingest path
 * asks for them itself whenever the reports it wrote outnumber what the statistics know of (the
 * table at least doubled): a handful of ANALYZE runs in a process's life, each sampled. Only the
 * reports table: no key looks rows up in the records table, whose ANALYZE took 80-110 ms (a
 * fifteenth of a PostgreSQL bench:ingest run, and part of an upload's answer time).
 * SQLite looks its foreign keys up by rowid and needs none of this.
 */
import { sql } from "drizzle-orm";
import type { StoreCore } from "../../db/store";

/** reports written between looks at the statistics */
export const STATS_CHECK_EVERY = 16;

const pending = new WeakMap<StoreCore, { reports: number; sinceLook: number }>();

/**
 * Notes `reports` aggregate reports written to `store` (after the file's transaction), and
 * refreshes the reports table's statistics when they know of fewer rows than were written
 * since they were last refreshed here. Returns whether it ran ANALYZE. Never throws.
 */
export async function noteReportsWritten(store: StoreCore, reports: number): Promise<boolean> {
  if (store.dialect !== "postgres" || reports <= 0) return false;
  let state = pending.get(store);
  if (!state) pending.set(store, (state = { reports: 0, sinceLook: 0 }));
  state.reports += reports;
  state.sinceLook += reports;
  if (state.sinceLook < STATS_CHECK_EVERY) return false;
  state.sinceLook = 0;
  try {
    const [row] = await store.rows<{ known: number | string | null }>(sql`SELECT reltuples AS known FROM pg_class WHERE oid = 'aggregate_reports'::regclass`);
    const known = Number(row?.known ?? -1);
    if (known >= 0 && state.reports <= known) return false;
    state.reports = 0;
    await store.rows(sql`ANALYZE aggregate_reports`);
    return true;
  } catch {
    // statistics are an optimisation: the report is stored either way
    return false;
  }
}
