import type { SQL } from "bun";
import { PG_MIGRATIONS } from "./migrations-pg.gen";

/**
 * Key of the session-level advisory lock held while migrating, so that several nodes started
 * together against one PostgreSQL database migrate once: the others wait, then find nothing
 * left to do. (The bytes of "dmarcw".)
 */
export const MIGRATION_LOCK_KEY = 0x646d61726377n;

type Migration = { tag: string; sql: string };

/**
 * Applies the embedded PostgreSQL migrations not yet applied, each in its own transaction,
 * and returns the tags it applied ([] when another node got there first). A failed migration
 * rolls back whole and throws.
 */
export async function applyPgMigrations(sql: SQL, migrations: Migration[] = PG_MIGRATIONS): Promise<string[]> {
  // one connection for the whole run: an advisory lock belongs to the session that took it
  const conn = await sql.reserve();
  let unlocked = false;
  try {
    await conn`SELECT pg_advisory_lock(${MIGRATION_LOCK_KEY.toString()}::bigint)`;
    try {
      await conn`CREATE TABLE IF NOT EXISTS schema_migrations (tag text PRIMARY KEY NOT NULL, applied_at bigint NOT NULL)`;
      const done = new Set((await conn`SELECT tag FROM schema_migrations`).map((r: { tag: string }) => r.tag));
      const applied: string[] = [];
      for (const migration of migrations) {
        if (done.has(migration.tag)) continue;
        const statements = migration.sql.split("--> statement-breakpoint").map((s) => s.trim()).filter(Boolean);
        await conn.begin(async (tx) => {
          for (const statement of statements) await tx.unsafe(statement);
          await tx`INSERT INTO schema_migrations (tag, applied_at) VALUES (${migration.tag}, extract(epoch from now())::bigint)`;
        });
        applied.push(migration.tag);
      }
      return applied;
    } finally {
      unlocked = await conn`SELECT pg_advisory_unlock(${MIGRATION_LOCK_KEY.toString()}::bigint)`.then(
        () => true,
        () => false,
      );
    }
  } finally {
    // a connection whose lock could not be released is closed (which drops the lock), not pooled
    await (unlocked ? conn.release() : conn.close());
  }
}
