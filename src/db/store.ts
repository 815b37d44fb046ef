/**
 * The store: one object that reaches the database, whichever it is. Services are written once,
 * async and dialect-free, against it:
 *
 *   reads   `await store.db.select().from(store.t.domains)…`   (never `.get()/.all()/.run()`:
 *           those exist on SQLite only; `await` runs the query on both)
 *   writes  `await store.write(async (tx) => { await tx.insert(store.t.domains)… })` — every
 *           write, one statement or many, goes through `write`
 *   raw SQL `await store.rows<T>(sql\`…\`)` for what drizzle's builder cannot say the same way
 *           in both dialects (keep it portable, or branch on `store.dialect`)
 *
 * Why `write` and not drizzle's `transaction`: on SQLite all requests share one connection, and
 * an `await` inside a transaction would let another request's statements run inside it. `write`
 * serialises write transactions in the process (an async lock), takes SQLite's write lock first
 * (BEGIN IMMEDIATE, retried while another process holds it) and commits or rolls back when the
 * body settles. On PostgreSQL each `write` runs on its own pooled connection, SERIALIZABLE, and is
 * run again when PostgreSQL reports a serialization failure or a deadlock (so the body may run
 * more than once: it must do nothing but database work, which the rules ask anyway), a bounded
 * number of times with growing, jittered pauses; past the bound the caller gets
 * DatabaseBusyError (HTTP 503 with Retry-After). Inside a `write`,
 * `store.db` and nested `write` calls use the same transaction, so a service may call another
 * feature's service within one transaction.
 *
 * `store.t` holds the active dialect's tables. Their TypeScript type is the SQLite schema's (the
 * canonical one); the PostgreSQL twin in `schema-pg/` has the same names, keys and JS types,
 * which `schema-parity.test.ts` checks.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import type { Database, SQLQueryBindings } from "bun:sqlite";
import { sql, type SQL } from "drizzle-orm";
import type { DB } from "./index";
import { Counter } from "../lib/metrics";
import type { Logger } from "../log";
import * as sqliteSchema from "./schema";
import { isBusyError, WRITE_ATTEMPTS, WRITE_RETRY_BASE_MS } from "./transaction";

export type Dialect = "sqlite" | "postgres";
export type Tables = typeof sqliteSchema;

export interface StoreCore {
  readonly dialect: Dialect;
  /** reads; inside `write` the same transaction */
  readonly db: DB;
  /** the active dialect's tables */
  readonly t: Tables;
  /** runs `work` as one write transaction (see the module comment) */
  write<T>(work: (tx: DB) => Promise<T>, options?: WriteOptions): Promise<T>;
  /** rows of a raw query */
  rows<T = Record<string, unknown>>(query: SQL): Promise<T[]>;
  /**
   * rows of a raw query as arrays, one value per selected column in the order selected (no
   * object per row: for reads of many rows that the caller sums, such as a roll-up window).
   * Values come back as from `rows` (PostgreSQL: 64-bit integers and sums as strings).
   */
  tuples<T extends unknown[] = unknown[]>(query: SQL): Promise<T[]>;
  /**
   * Each row of a raw query handed to `each` as it is read, as from `rows`: for reads of many
   * rows that the caller sums. SQLite steps through the statement, so no more than one row is
   * held: a 90-day roll-up window of 760,000 address-days read as one array of rows took a
   * process to 1.26 GB of memory, stepped through 76 MB, in about the same time. PostgreSQL's
   * client has no cursor: its rows are read first, as `rows`.
   */
  eachRow<T = Record<string, unknown>>(query: SQL, each: (row: T) => void): Promise<void>;
  /**
   * For answers kept between requests (src/features/reports/read-cache.ts): null while a read
   * could see data not yet committed (inside `write`; on SQLite, while any write transaction of
   * this process is open on the shared connection), else a number that changes whenever a write
   * transaction of this process begins (PostgreSQL reads outside `write` see committed data only).
   */
  readEpoch(): number | null;
}

export interface WriteOptions {
  /**
   * SQLite: false runs the transaction without foreign-key enforcement (bulk ingest: checking a
   * parent for every row costs about a quarter of the write). Only for a body that inserts rows
   * whose parents it has checked itself inside the transaction (the write lock keeps them there
   * until the commit) and deletes nothing. Ignored inside an open `write` and on PostgreSQL.
   */
  foreignKeys?: boolean;
  /**
   * PostgreSQL: writes of this process given the same key run one after another, each begun
   * once the one before it ended. For writes that take the same rows at their start (an
   * organization's report writes, holdForReportWrite): a SERIALIZABLE transaction that waits in
   * PostgreSQL for a row another one then changes fails when that one commits, so several such
   * writes at once failed in turn and ran again whole; waiting here, before the transaction
   * begins, they do not. Ignored inside an open `write` and on SQLite (one writer at a time).
   */
  queue?: string;
}

type DriverError = { code?: unknown; errno?: unknown; message?: unknown; cause?: unknown } | null;

/** The error and the errors it wraps (drizzle wraps the driver's error as `cause`). */
function errorChain(error: unknown): NonNullable<DriverError>[] {
  const chain: NonNullable<DriverError>[] = [];
  for (let e = error as DriverError; e && typeof e === "object" && chain.length < 5; e = e.cause as DriverError) chain.push(e);
  return chain;
}

/** The PostgreSQL SQLSTATE of `error` or of an error it wraps (Bun's client puts it in `errno`). */
function sqlState(error: unknown): string | null {
  for (const e of errorChain(error)) {
    for (const value of [e.errno, e.code]) if (typeof value === "string" && /^[0-9A-Z]{5}$/.test(value)) return value;
  }
  return null;
}

/** True when `error` is a unique-constraint violation, in either dialect. */
export function isUniqueViolation(error: unknown): boolean {
  if (sqlState(error) === "23505") return true;
  return errorChain(error).some((e) => {
    const code = String(e.code ?? "");
    if (code.startsWith("SQLITE_CONSTRAINT_UNIQUE") || code.startsWith("SQLITE_CONSTRAINT_PRIMARYKEY")) return true;
    return /UNIQUE constraint failed|duplicate key value violates unique constraint/i.test(String(e.message ?? e));
  });
}

/** Attempts of one PostgreSQL write transaction that keeps meeting serialization failures or deadlocks. */
export const PG_WRITE_ATTEMPTS = 8;
/** Pause before the second attempt; doubled for each further one, at most PG_RETRY_MAX_MS, with jitter (0.5-1.5×). */
export const PG_RETRY_BASE_MS = 10;
export const PG_RETRY_MAX_MS = 1000;
/** serialization_failure, deadlock_detected: the transaction may simply be run again */
const RETRYABLE = new Set(["40001", "40P01"]);

/** Registered with the server's metrics (src/features/metrics/registry.ts). */
export const dbWriteRetries = new Counter(
  "dmarcwarden_db_retries_total",
  "PostgreSQL write transactions run again after a serialization failure (sqlstate 40001) or a deadlock (40P01), by sqlstate.",
  ["sqlstate"],
);

/**
 * A write transaction that still met serialization failures or deadlocks after PG_WRITE_ATTEMPTS
 * runs: the database is too busy for it now, nothing of it was saved, and the same request may
 * succeed later (HTTP 503 with Retry-After, src/http/error-plugin.ts).
 */
export class DatabaseBusyError extends Error {
  readonly code = "database_busy";
  constructor(readonly attempts: number, cause: unknown) {
    super(`The database stayed too busy for this change (${attempts} attempts); nothing was saved.`, { cause });
    this.name = "DatabaseBusyError";
  }
}

const pgRetryPause = (attempt: number) => Math.min(PG_RETRY_MAX_MS, PG_RETRY_BASE_MS * 2 ** (attempt - 1)) * (0.5 + Math.random());

/** A FIFO async lock: one holder at a time, waiters in order. */
class AsyncLock {
  private tail: Promise<void> = Promise.resolve();
  async acquire(): Promise<() => void> {
    let release!: () => void;
    const next = new Promise<void>((resolve) => (release = resolve));
    const previous = this.tail;
    this.tail = previous.then(() => next);
    await previous;
    return release;
  }
}

/**
 * The SQLite side of the store on a bun:sqlite connection and its drizzle instance. Write
 * transactions are serialised in the process and take the write lock first; a busy database
 * (another process writing) is retried with backoff that yields to the event loop.
 */
export function sqliteStoreCore(sqlite: Database, db: DB): StoreCore {
  const lock = new AsyncLock();
  const current = new AsyncLocalStorage<DB>();
  let writesBegun = 0;
  return {
    dialect: "sqlite",
    get db() {
      return current.getStore() ?? db;
    },
    t: sqliteSchema,
    async write(work, options) {
      const open = current.getStore();
      if (open) return work(open);
      const release = await lock.acquire();
      // a connection setting, changeable only outside a transaction: off for this one, then on again
      const unchecked = options?.foreignKeys === false && (sqlite.query("PRAGMA foreign_keys").get() as { foreign_keys: number } | null)?.foreign_keys === 1;
      if (unchecked) sqlite.run("PRAGMA foreign_keys = OFF");
      try {
        for (let attempt = 1; ; attempt++) {
          try {
            sqlite.run("BEGIN IMMEDIATE");
            // counted once begun: a read that started while this write waited for the lock (another
            // process held it) must not keep what this write then does on the shared connection
            writesBegun++;
            break;
          } catch (error) {
            if (attempt >= WRITE_ATTEMPTS || !isBusyError(error)) throw error;
            await Bun.sleep(WRITE_RETRY_BASE_MS * 2 ** (attempt - 1) * (0.5 + Math.random()));
          }
        }
        try {
          const result = await current.run(db, () => work(db));
          sqlite.run("COMMIT");
          return result;
        } catch (error) {
          if (sqlite.inTransaction) sqlite.run("ROLLBACK");
          throw error;
        }
      } finally {
        if (unchecked) sqlite.run("PRAGMA foreign_keys = ON");
        release();
      }
    },
    async rows<T>(query: SQL) {
      return (current.getStore() ?? db).all(query) as T[];
    },
    async tuples<T extends unknown[]>(query: SQL) {
      return (current.getStore() ?? db).values(query) as T[];
    },
    async eachRow<T>(query: SQL, each: (row: T) => void) {
      // the same connection inside a write or not (SQLite has one); the statement compiled once
      // per text, and told to drizzle's logger as drizzle's own queries are (the query-plan test reads it)
      const drizzled = db as unknown as { dialect: { sqlToQuery(q: SQL): { sql: string; params: unknown[] } }; session: { logger: { logQuery(sql: string, params: unknown[]): void } } };
      const { sql: text, params } = drizzled.dialect.sqlToQuery(query);
      drizzled.session.logger.logQuery(text, params);
      for (const row of sqlite.query(text).iterate(...(params as SQLQueryBindings[]))) each(row as T);
    },
    readEpoch() {
      return current.getStore() || sqlite.inTransaction ? null : writesBegun;
    },
  };
}

/** The PostgreSQL side: every write on its own pooled connection through drizzle's transaction. */
export function postgresStoreCore(db: DB, t: Tables, log: Logger): StoreCore {
  const current = new AsyncLocalStorage<DB>();
  /** WriteOptions.queue: the lock of each key with writes under way or waiting */
  const queues = new Map<string, { lock: AsyncLock; users: number }>();
  // The PostgreSQL drizzle instance and tables are typed as their SQLite twins (see the module
  // comment); these are the two members whose shape differs between the dialects.
  const pg = db as unknown as { transaction<T>(work: (tx: unknown) => Promise<T>, config?: { isolationLevel: "serializable" }): Promise<T>; execute(query: SQL): Promise<unknown[]> };
  // drizzle's bun-sql session (of the pool, or of the open transaction) answers a query as arrays
  type ArraySession = { dialect: { sqlToQuery(query: SQL): { sql: string; params: unknown[] } }; session: { query(text: string, params: unknown[]): Promise<unknown[][]> } };
  return {
    dialect: "postgres",
    get db() {
      return current.getStore() ?? db;
    },
    t,
    async write(work, options) {
      const open = current.getStore();
      if (open) return work(open);
      const key = options?.queue;
      let queue = key === undefined ? undefined : queues.get(key);
      if (key !== undefined && !queue) queues.set(key, (queue = { lock: new AsyncLock(), users: 0 }));
      if (queue) queue.users++;
      const release = await queue?.lock.acquire();
      try {
        // SERIALIZABLE: the same outcome as SQLite's one-writer-at-a-time, with writers in parallel
        for (let attempt = 1; ; attempt++) {
          try {
            return await pg.transaction(
              async (tx) => {
                // the pool's connections plan every statement for its parameters (PG_CONNECTION_SETTINGS,
                // src/db/postgres.ts), which would re-plan each foreign-key check of each inserted row too
                await (tx as typeof pg).execute(sql.raw("SET LOCAL plan_cache_mode = auto"));
                return current.run(tx as DB, () => work(tx as DB));
              },
              { isolationLevel: "serializable" },
            );
          } catch (error) {
            const state = sqlState(error);
            if (!state || !RETRYABLE.has(state)) throw error;
            if (attempt >= PG_WRITE_ATTEMPTS) {
              log.warn("db.write_gave_up", { sqlstate: state, attempts: attempt });
              throw new DatabaseBusyError(attempt, error);
            }
            const pauseMs = Math.round(pgRetryPause(attempt));
            dbWriteRetries.inc({ sqlstate: state });
            log.warn("db.write_retry", { sqlstate: state, attempt, pauseMs });
            await Bun.sleep(pauseMs);
          }
        }
      } finally {
        release?.();
        if (queue && --queue.users === 0) queues.delete(key!);
      }
    },
    async rows<T>(query: SQL) {
      const open = current.getStore() as unknown as typeof pg | undefined;
      return [...(await (open ?? pg).execute(query))] as T[];
    },
    async tuples<T extends unknown[]>(query: SQL) {
      const on = (current.getStore() ?? db) as unknown as ArraySession;
      const { sql: text, params } = on.dialect.sqlToQuery(query);
      return [...(await on.session.query(text, params))] as T[];
    },
    async eachRow<T>(query: SQL, each: (row: T) => void) {
      for (const row of await this.rows<T>(query)) each(row);
    },
    readEpoch() {
      return current.getStore() ? null : 0;
    },
  };
}
