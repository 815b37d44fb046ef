/**
 * The PostgreSQL side of src/db/index.ts: Bun's SQL client, drizzle's bun-sql driver, the
 * PostgreSQL schema and its migrations. index.ts loads this module only when a database URL
 * is configured, so a SQLite server does not set them up at start.
 */
import { SQL } from "bun";
import { drizzle as drizzlePg } from "drizzle-orm/bun-sql";
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

export async function openPostgresStore(url: string, options: { pool?: number; migrate?: boolean } = {}): Promise<Store> {
  const client = new SQL({ url, max: options.pool ?? 10, connection: PG_CONNECTION_SETTINGS });
  try {
    if (options.migrate !== false) await applyPgMigrations(client);
  } catch (error) {
    await client.close();
    throw error;
  }
  // typed as the SQLite twin: see store.ts
  const db = drizzlePg({ client, schema: pgSchema }) as unknown as DB;
  let closed: Promise<void> | null = null;
  return Object.assign(postgresStoreCore(db, pgSchema as unknown as Tables), {
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
