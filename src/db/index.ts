import { Database, type Statement } from "bun:sqlite";
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { drizzle, type BunSQLiteDatabase } from "drizzle-orm/bun-sqlite";
import { createLogger, type Logger } from "../log";
import { periodic } from "../lib/periodic";
import { applyMigrations } from "./migrate";
import * as schema from "./schema";
import { sqliteStoreCore, type StoreCore } from "./store";
import { isBusyError } from "./transaction";

export type DB = BunSQLiteDatabase<typeof schema>;
/** The database, whichever it is: see store.ts for how services read and write through it. */
export interface Store extends StoreCore {
  /** SQLite only: the raw connection, for the SQLite adapters' prepared statements */
  sqlite?: Database;
  /** closes the connection (SQLite) or the pool (PostgreSQL); safe to call twice */
  close(): Promise<void>;
}

/** A SQLite store: its connection is always there. */
export type SqliteStore = Store & { sqlite: Database };

/** Which database the configuration names: PostgreSQL with --database-url, else the SQLite file. */
export interface DatabaseSettings {
  db: string;
  databaseUrl: string;
  databasePool: number;
}

/**
 * SQLite tuning. A new database file has pages of `SQLITE_PAGE_SIZE` bytes (an existing one keeps
 * its own): with 8 KB pages instead of SQLite's 4 KB, each roll-up row's entries in its four
 * B-trees (keys of two 36-character ids) meet fewer page splits, and bench:ingest stores a fifth
 * more records a second (docs/benchmarks.md). The page cache holds the upper pages of what the
 * dashboard reads (roll-ups and their indexes; the rest comes from the operating system's file
 * cache) and no more: a large upload's transaction fills all of it with its dirty pages before
 * they spill to the WAL, and a 32 MB cache held about 35 MB more at the peak of a 100,000-record
 * upload than this one. Temporary b-trees stay in memory. WAL checkpoints are kept off the commit
 * path: SQLite's automatic checkpoint (which a commit runs once the WAL passes
 * `WAL_AUTOCHECKPOINT_BYTES`, whatever the file's page size, and which made every ~10th file's
 * commit slow) only steps in as a backstop, while a background checkpoint copies the WAL back
 * between transactions every `CHECKPOINT_EVERY_MS`. `PRAGMA optimize` runs at open and then every
 * `OPTIMIZE_EVERY_MS`, so the planner's statistics follow the data, each ANALYZE it runs sampling
 * at most `ANALYSIS_LIMIT` rows per index: on a 2 M-record database never analysed before, the
 * open-time optimize took 2.3-21 s unbounded (the main thread waits, `/healthz` with it) and
 * 0.4-0.8 s so; on a 12 GB database whose pages are not in the file cache an unbounded analysis
 * reads the whole file.
 */
export const SQLITE_CACHE_KB = 8 * 1024;
export const SQLITE_PAGE_SIZE = 8192;
export const WAL_AUTOCHECKPOINT_BYTES = 64 * 1024 * 1024;
export const CHECKPOINT_EVERY_MS = 2_000;
export const OPTIMIZE_EVERY_MS = 3_600_000;
export const ANALYSIS_LIMIT = 1_000;

/** One round of background upkeep: a passive WAL checkpoint, unless a write transaction is open. Returns whether it ran. */
export function checkpointWal(sqlite: Database): boolean {
  try {
    if (sqlite.inTransaction) return false;
    sqlite.run("PRAGMA wal_checkpoint(PASSIVE)");
    return true;
  } catch (error) {
    // busy with another process's write (dmarcwarden ingest): the next round tries again
    if (isBusyError(error)) return false;
    throw error;
  }
}

/** `PRAGMA optimize` between transactions; another process's write lock makes it wait for the next round. */
function optimize(sqlite: Database): void {
  try {
    if (!sqlite.inTransaction) sqlite.run("PRAGMA optimize");
  } catch (error) {
    if (!isBusyError(error)) throw error;
  }
}

/** where upkeep failures go when openStore is given no logger: stderr, keeping a command's stdout its own */
const upkeepLog = createLogger("warn", (line) => process.stderr.write(line + "\n"));

/** The background checkpoints and optimize, as periodic jobs (unref'd: neither keeps a CLI command alive); resolves the stop once a running round ended. */
function startUpkeep(sqlite: Database, path: string, log: Logger): () => Promise<void> {
  if (path === ":memory:") return async () => {};
  const jobs = [
    periodic({ everyMs: CHECKPOINT_EVERY_MS, run: () => void checkpointWal(sqlite), onError: (error) => log.warn("db.checkpoint_failed", { error }) }),
    periodic({ everyMs: OPTIMIZE_EVERY_MS, run: () => optimize(sqlite), onError: (error) => log.warn("db.optimize_failed", { error }) }),
  ];
  return async () => {
    await Promise.all(jobs.map((job) => job.stop()));
  };
}

/** compiled statements kept per connection for drizzle (keepingStatements) */
export const STATEMENTS_KEPT = 512;

/**
 * The connection as drizzle's bun:sqlite session sees it: its `prepare` answers a statement
 * already compiled for the same SQL text (the session compiles every query it runs anew; a
 * dashboard request runs a dozen, the same ones again and again), the least recently used of at
 * most STATEMENTS_KEPT dropped first. Sharing one is safe: each run is synchronous and resets the
 * statement when done. Every other property is the connection's own.
 */
export function keepingStatements(sqlite: Database): Database {
  const kept = new Map<string, Statement>();
  const prepare = (text: string): Statement => {
    let statement = kept.get(text);
    if (statement) {
      kept.delete(text);
    } else {
      statement = sqlite.prepare(text);
      if (kept.size >= STATEMENTS_KEPT) kept.delete(kept.keys().next().value!);
    }
    kept.set(text, statement);
    return statement;
  };
  return new Proxy(sqlite, {
    get(target, property) {
      if (property === "prepare") return prepare;
      const value = Reflect.get(target, property, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

/**
 * Opens (creating if needed) the SQLite file with WAL, foreign keys, a busy timeout and the
 * tuning above, and applies pending migrations unless told not to.
 */
export function openStore(path: string, options: { migrate?: boolean; log?: Logger } = {}): SqliteStore {
  if (path !== ":memory:") mkdirSync(dirname(path), { recursive: true });
  const sqlite = new Database(path, { create: true, strict: true });
  sqlite.run("PRAGMA busy_timeout = 5000");
  // before anything is written (WAL mode included): only a new, empty file takes it
  sqlite.run(`PRAGMA page_size = ${SQLITE_PAGE_SIZE}`);
  if (path !== ":memory:") sqlite.run("PRAGMA journal_mode = WAL");
  sqlite.run("PRAGMA synchronous = NORMAL");
  sqlite.run("PRAGMA foreign_keys = ON");
  sqlite.run(`PRAGMA cache_size = -${SQLITE_CACHE_KB}`);
  sqlite.run("PRAGMA temp_store = MEMORY");
  const { page_size: pageSize } = sqlite.query("PRAGMA page_size").get() as { page_size: number };
  sqlite.run(`PRAGMA wal_autocheckpoint = ${WAL_AUTOCHECKPOINT_BYTES / pageSize}`);
  sqlite.run(`PRAGMA analysis_limit = ${ANALYSIS_LIMIT}`);
  if (options.migrate !== false) applyMigrations(sqlite);
  // a long-lived connection: analyse what needs it now (bounded work), then on the schedule
  sqlite.run("PRAGMA optimize = 0x10002");
  const stopUpkeep = startUpkeep(sqlite, path, options.log ?? upkeepLog);
  const db = drizzle(keepingStatements(sqlite), { schema });
  let closed = false;
  return Object.assign(sqliteStoreCore(sqlite, db), {
    sqlite,
    async close() {
      if (closed) return;
      closed = true;
      await stopUpkeep();
      try {
        checkpointWal(sqlite);
      } finally {
        // the handle is closed even when the last checkpoint fails (the error still surfaces)
        sqlite.close();
      }
    },
  });
}

/**
 * Opens the PostgreSQL database at `url` with a pool of at most `pool` connections and applies
 * pending migrations (under the advisory lock, so nodes starting together migrate once) unless
 * told not to.
 */
export async function openPostgresStore(url: string, options: { pool?: number; migrate?: boolean; log?: Logger } = {}): Promise<Store> {
  // the PostgreSQL client, driver and schema load only when PostgreSQL is used (src/db/postgres.ts)
  return (await import("./postgres")).openPostgresStore(url, options);
}

/** The store the configuration names (see DatabaseSettings), migrated unless told not to. */
export async function openDatabase(config: DatabaseSettings, options: { migrate?: boolean; log?: Logger } = {}): Promise<Store> {
  if (config.databaseUrl) return openPostgresStore(config.databaseUrl, { pool: config.databasePool, migrate: options.migrate, log: options.log });
  return openStore(config.db, options);
}

/** Applies the pending migrations of the configured database; returns their tags ([] when up to date). */
export async function migrateDatabase(config: DatabaseSettings): Promise<string[]> {
  if (!config.databaseUrl) {
    const store = openStore(config.db, { migrate: false });
    try {
      return applyMigrations(store.sqlite);
    } finally {
      await store.close();
    }
  }
  return (await import("./postgres")).migratePostgres(config.databaseUrl);
}

/** Where the store is, for logs and messages: the file, or the PostgreSQL URL without its password. */
export function describeDatabase(config: DatabaseSettings): string {
  return config.databaseUrl ? redactDatabaseUrl(config.databaseUrl) : config.db;
}

/** A database URL with its password replaced, for messages. */
export function redactDatabaseUrl(url: string): string {
  return url.replace(/\/\/([^:/@]+):[^@]*@/, "//$1:***@");
}

export { schema };
