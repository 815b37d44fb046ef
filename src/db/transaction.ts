/**
 * Write transactions that never lose to contention. Several writers share one SQLite file
 * (the server's requests, the CLI's `ingest`, a second process): a deferred transaction that
 * reads first and writes later fails at once with "database is locked" when another writer
 * committed in between, and SQLite's busy timeout does not help there. So every write
 * transaction takes the write lock at its start (BEGIN IMMEDIATE), waits for it under the
 * connection's busy timeout, and is retried a bounded number of times with backoff when the
 * lock still could not be had.
 */
import type { Database } from "bun:sqlite";
import type { DB } from "./index";

/** Attempts of one write transaction before it fails (each waits up to the busy timeout). */
export const WRITE_ATTEMPTS = 4;
/** Backoff before the second attempt; doubled each time, with jitter. */
export const WRITE_RETRY_BASE_MS = 50;

/** SQLITE_BUSY / SQLITE_LOCKED and their extended codes ("database is locked"). */
export function isBusyError(error: unknown): boolean {
  const e = error as { code?: unknown; errno?: unknown; message?: unknown } | null;
  if (!e) return false;
  const code = String(e.code ?? "");
  if (code.startsWith("SQLITE_BUSY") || code.startsWith("SQLITE_LOCKED")) return true;
  const errno = typeof e.errno === "number" ? e.errno & 0xff : -1;
  if (errno === 5 || errno === 6) return true;
  return /database is locked|database table is locked|database is busy/i.test(String(e.message ?? ""));
}

const backoff = (attempt: number) => WRITE_RETRY_BASE_MS * 2 ** (attempt - 1) * (0.5 + Math.random());

/** Runs `attempt` until it succeeds, retrying busy errors with (blocking) backoff. */
function retrySync<T>(attempt: () => T): T {
  for (let n = 1; ; n++) {
    try {
      return attempt();
    } catch (error) {
      if (n >= WRITE_ATTEMPTS || !isBusyError(error)) throw error;
      Bun.sleepSync(backoff(n));
    }
  }
}

/**
 * Runs `work` in one BEGIN IMMEDIATE … COMMIT transaction on the raw connection (rolled back
 * if it throws), retried on a busy database. `work` must be synchronous.
 */
export function writeTransaction<T>(sqlite: Database, work: () => T): T {
  return retrySync(() => sqlite.transaction(work).immediate());
}

/** The same for drizzle: `db.transaction(work)` with the write lock taken first. */
export function writeTransactionDb<T>(db: DB, work: (tx: Parameters<Parameters<DB["transaction"]>[0]>[0]) => T): T {
  return retrySync(() => db.transaction(work, { behavior: "immediate" }));
}

/**
 * For async callers on the hot path (report ingestion): the same transaction, but the backoff
 * between attempts yields to the event loop instead of blocking the process.
 */
export async function writeTransactionAsync<T>(sqlite: Database, work: () => T): Promise<T> {
  for (let n = 1; ; n++) {
    try {
      return sqlite.transaction(work).immediate();
    } catch (error) {
      if (n >= WRITE_ATTEMPTS || !isBusyError(error)) throw error;
      await Bun.sleep(backoff(n));
    }
  }
}
