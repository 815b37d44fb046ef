/**
 * Migration tests: a database migrated up to (not including) the migration whose tag ends with
 * TAG, seeded by the test, then that migration applied — on SQLite in memory and on a
 * throw-away PostgreSQL cluster (one per test file, started on first use, stopped after the
 * file's tests). PostgreSQL's migrations go through the server's own `applyPgMigrations` (each
 * in its transaction, recorded in schema_migrations); SQLite's statements are run as they are.
 */
import { Database } from "bun:sqlite";
import { afterAll, expect } from "bun:test";
import { SQL } from "bun";
import { applyPgMigrations } from "../../src/db/migrate-pg";
import { MIGRATIONS } from "../../src/db/migrations.gen";
import { PG_MIGRATIONS } from "../../src/db/migrations-pg.gen";
import { postgresMissing, startPostgres, type PostgresCluster } from "./postgres";

export { postgresMissing };

/** A migration's SQL statements (drizzle-kit separates them with statement-breakpoint lines). */
export const migrationStatements = (sql: string) => sql.split("--> statement-breakpoint").map((s) => s.trim()).filter(Boolean);

/** The index of the migration whose tag ends with `tag` (after the first: there is something before it to seed). */
function indexOf(migrations: { tag: string }[], tag: string): number {
  const at = migrations.findIndex((m) => m.tag.endsWith(tag));
  expect(at).toBeGreaterThan(0);
  return at;
}

export interface SqliteBefore {
  /** the in-memory database, with foreign keys on, migrated up to the migration before TAG */
  db: Database;
  /** applies the migration TAG */
  migrate(): void;
}

/** An in-memory SQLite database migrated up to the migration before `tag`. */
export function sqliteBefore(tag: string): SqliteBefore {
  const db = new Database(":memory:");
  db.run("PRAGMA foreign_keys = ON");
  const at = indexOf(MIGRATIONS, tag);
  for (const m of MIGRATIONS.slice(0, at)) for (const s of migrationStatements(m.sql)) db.run(s);
  return { db, migrate: () => migrationStatements(MIGRATIONS[at]!.sql).forEach((s) => db.run(s)) };
}

export interface PostgresBefore {
  /** a connection to a fresh database migrated up to the migration before TAG */
  sql: SQL;
  /** applies the migration TAG (in its transaction, as the server does) */
  migrate(): Promise<void>;
}

/**
 * Call once at the top of a test file: the file's throw-away PostgreSQL cluster, started on the
 * first call of the function returned (at most once) and stopped after the file's tests.
 */
export function fileCluster(): () => Promise<PostgresCluster> {
  let cluster: Promise<PostgresCluster> | null = null;
  afterAll(async () => {
    const started = cluster;
    cluster = null;
    await (await started)?.stop();
  });
  return () => {
    if (postgresMissing) throw new Error(postgresMissing);
    return (cluster ??= startPostgres());
  };
}

/**
 * Call once at the top of a test file: `upTo(tag, work)` runs `work` on a fresh PostgreSQL
 * database migrated up to the migration before `tag`, on the file's cluster (fileCluster), and
 * closes the connection after.
 */
export function postgresMigrations(): { upTo(tag: string, work: (db: PostgresBefore) => Promise<void>): Promise<void> } {
  const cluster = fileCluster();
  return {
    async upTo(tag, work) {
      const sql = new SQL(await (await cluster()).createDatabase());
      try {
        const at = indexOf(PG_MIGRATIONS, tag);
        await applyPgMigrations(sql, PG_MIGRATIONS.slice(0, at));
        await work({ sql, migrate: async () => void (await applyPgMigrations(sql, [PG_MIGRATIONS[at]!])) });
      } finally {
        await sql.close();
      }
    },
  };
}
