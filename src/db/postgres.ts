/**
 * The PostgreSQL side of src/db/index.ts: Bun's SQL client, drizzle's bun-sql driver, the
 * PostgreSQL schema and its migrations. index.ts loads this module only when a database URL
 * is configured, so a SQLite server does not set them up at start.
 */
import { SQL } from "bun";
import { drizzle as drizzlePg } from "drizzle-orm/bun-sql";
import { createLogger, type Logger } from "../log";
import type { DB, Store } from "./index";
import { applyPgMigrations } from "./migrate-pg";
import * as pgSchema from "./schema-pg";
import { postgresStoreCore, type Tables } from "./store";

/**
 * Settings every pooled connection starts with: each run of a statement is planned for its own
 * parameters. Bun's client prepares each statement once per connection and runs it again by
 * name, and from a prepared statement's sixth run PostgreSQL may plan it once for any parameters
 * (a generic plan): for the hot reads, whose organization, days and addresses are parameters, the
 * averaged estimates chose plans that read far more of the roll-ups (trends' top addresses' days:
 * 13-20 ms for their first five runs, 80-220 ms from the sixth on the 2 M-record bench database).
 * Statements stay prepared (sent unnamed, each run parsed again, the cheap reads such as the
 * tasks' took 2-5 ms more). Write transactions set the mode back to `auto` for themselves
 * (`postgresStoreCore`): forced, every foreign-key check of every inserted row is planned again
 * (50,000 rows with two foreign keys: 1.7-1.9 s against 0.6-0.8 s).
 */
export const PG_CONNECTION_SETTINGS = { plan_cache_mode: "force_custom_plan" } as const;

/**
 * The cost of reading a page out of order that the application's sessions plan with, when the
 * server leaves PostgreSQL's default (4, a spinning disk's): 1.1, the usual figure for SSD storage
 * and for data in memory. A window of days of one organization lies on few of the roll-up table's
 * pages (rows are written day by day), but its primary key's first column, the organization, is
 * spread over the whole table; at 4 the planner read a large organization's 30 days (254,035 of
 * 7.6 M rows) by scanning the whole 2 GB table (650-870 ms) rather than the key (171-251 ms).
 * Timed on every dashboard endpoint at 10 M records: none slower, Senders (30 days) after new data
 * 826-888 → 373-450 ms, trends' top sources 515-547 → 165-177 ms (docs/benchmarks.md). A value the
 * configuration file, the database or the role sets is the operator's, and kept. Not sent either
 * when the database or the role sets `plan_cache_mode` (docs/operations/postgresql.md's way behind PgBouncer, which
 * refuses startup parameters it is not told to ignore): such a server is told to set both there.
 */
export const RANDOM_PAGE_COST = "1.1";

/** The settings the pool's connections start with: PG_CONNECTION_SETTINGS, and RANDOM_PAGE_COST when the server leaves both at their defaults. */
async function connectionSettings(setup: SQL): Promise<Record<string, string>> {
  const rows: { name: string; source: string }[] = await setup`SELECT name, source FROM pg_settings WHERE name IN ('random_page_cost', 'plan_cache_mode')`;
  const untouched = rows.length === 2 && rows.every((r) => r.source === "default");
  return untouched ? { ...PG_CONNECTION_SETTINGS, random_page_cost: RANDOM_PAGE_COST } : { ...PG_CONNECTION_SETTINGS };
}

/** where a store opened without a logger tells of its retried writes: stderr, keeping a command's stdout its own */
const stderrLog = createLogger("warn", (line) => process.stderr.write(line + "\n"));

export async function openPostgresStore(url: string, options: { pool?: number; migrate?: boolean; log?: Logger } = {}): Promise<Store> {
  // one connection to migrate and to read the server's settings, then the pool
  const setup = new SQL({ url, max: 1 });
  let settings: Record<string, string>;
  try {
    if (options.migrate !== false) await applyPgMigrations(setup);
    settings = await connectionSettings(setup);
  } finally {
    await setup.close();
  }
  const client = new SQL({ url, max: options.pool ?? 10, connection: settings });
  // typed as the SQLite twin: see store.ts
  const db = drizzlePg({ client, schema: pgSchema }) as unknown as DB;
  let closed: Promise<void> | null = null;
  return Object.assign(postgresStoreCore(db, pgSchema as unknown as Tables, options.log ?? stderrLog), {
    close: () => (closed ??= client.close()),
  });
}

/** Applies the pending PostgreSQL migrations at `url`; returns their tags. */
export async function migratePostgres(url: string): Promise<string[]> {
  const client = new SQL({ url, max: 1 });
  try {
    return await applyPgMigrations(client);
  } finally {
    await client.close();
  }
}
