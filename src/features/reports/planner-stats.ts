/**
 * PostgreSQL's planner statistics of the report tables kept in step with a fast-growing store.
 *
 * Every inserted record is checked against its report (the foreign key),
 * and PostgreSQL plans those checks once per connection and keeps the plan. Planned while the
 * records table was nearly empty (a new database, the first import), the check reads the table
 * from end to end, and keeps doing so for every row inserted while the table grows: the
 * 200 auth results of a 100-record report (rows of their own then, each checked against its
 * record) took half a second after a few hundred reports.
 * Fresh statistics replace the kept plans on every connection. Autovacuum refreshes them about
 * once a minute at best; an import writes millions of rows in that time, so the ingest path
 * asks for them itself whenever the records it wrote outnumber what the statistics know of
 * (the table at least doubled): a handful of ANALYZE runs in a process's life, each sampled.
 * SQLite looks its foreign keys up by rowid and needs none of this.
 */
import { sql } from "drizzle-orm";
import type { StoreCore } from "../../db/store";

/** records written between looks at the statistics */
export const STATS_CHECK_EVERY = 1000;

const pending = new WeakMap<StoreCore, { records: number; sinceLook: number }>();

/**
 * Notes `records` aggregate records written to `store` (after the file's transaction), and
 * refreshes the report tables' statistics when they know of fewer rows than were written
 * since they were last refreshed here. Returns whether it ran ANALYZE. Never throws.
 */
export async function noteRecordsWritten(store: StoreCore, records: number): Promise<boolean> {
  if (store.dialect !== "postgres" || records <= 0) return false;
  let state = pending.get(store);
  if (!state) pending.set(store, (state = { records: 0, sinceLook: 0 }));
  state.records += records;
  state.sinceLook += records;
  if (state.sinceLook < STATS_CHECK_EVERY) return false;
  state.sinceLook = 0;
  try {
    const [row] = await store.rows<{ known: number | string | null }>(sql`SELECT reltuples AS known FROM pg_class WHERE oid = 'aggregate_records'::regclass`);
    const known = Number(row?.known ?? -1);
    if (known >= 0 && state.records <= known) return false;
    state.records = 0;
    await store.rows(sql`ANALYZE aggregate_reports, aggregate_records`);
    return true;
  } catch {
    // statistics are an optimisation: the report is stored either way
    return false;
  }
}
