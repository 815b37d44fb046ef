import { Database } from "bun:sqlite";
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { drizzle, type BunSQLiteDatabase } from "drizzle-orm/bun-sqlite";
import { applyMigrations } from "./migrate";
import * as schema from "./schema";
import { sqliteStoreCore, type StoreCore } from "./store";

export type DB = BunSQLiteDatabase<typeof schema>;
/** The database, whichever it is: see store.ts for how services read and write through it. */
export interface Store extends StoreCore {
  /** the raw connection, for pragmas, health checks and hot-path prepared statements */
  sqlite: Database;
  close(): void;
}

/**
 * Opens (creating if needed) the SQLite file with WAL, foreign keys and a busy timeout,
 * and applies pending migrations unless told not to.
 */
export function openStore(path: string, options: { migrate?: boolean } = {}): Store {
  if (path !== ":memory:") mkdirSync(dirname(path), { recursive: true });
  const sqlite = new Database(path, { create: true, strict: true });
  sqlite.run("PRAGMA busy_timeout = 5000");
  if (path !== ":memory:") sqlite.run("PRAGMA journal_mode = WAL");
  sqlite.run("PRAGMA synchronous = NORMAL");
  sqlite.run("PRAGMA foreign_keys = ON");
  if (options.migrate !== false) applyMigrations(sqlite);
  const db = drizzle(sqlite, { schema });
  return Object.assign(sqliteStoreCore(sqlite, db), { sqlite, close: () => sqlite.close() });
}

export { schema };
