import type { Database } from "bun:sqlite";
import { MIGRATIONS } from "./migrations.gen";
import { writeTransaction } from "./transaction";

/**
 * Applies the embedded migrations not yet applied, each in its own transaction, and
 * returns the tags it applied. A failed migration rolls back whole and stops start-up.
 * Temporaries go to disk while a migration runs: a statement that rewrites a table inside the
 * migration's transaction keeps the pages it changed in a statement journal (0027 on 2 M
 * records held 470-700 MB of them in memory; on disk the process stayed at 42 MB).
 */
export function applyMigrations(sqlite: Database): string[] {
  sqlite.run(`CREATE TABLE IF NOT EXISTS schema_migrations (tag TEXT PRIMARY KEY NOT NULL, applied_at INTEGER NOT NULL)`);
  const done = new Set(sqlite.query<{ tag: string }, []>("SELECT tag FROM schema_migrations").all().map((r) => r.tag));
  if (MIGRATIONS.every((m) => done.has(m.tag))) return [];
  const tempStore = (sqlite.query("PRAGMA temp_store").get() as { temp_store: number }).temp_store;
  sqlite.run("PRAGMA temp_store = FILE");
  try {
    return apply(sqlite, done);
  } finally {
    sqlite.run(`PRAGMA temp_store = ${tempStore}`);
  }
}

function apply(sqlite: Database, done: Set<string>): string[] {
  const applied: string[] = [];
  for (const migration of MIGRATIONS) {
    if (done.has(migration.tag)) continue;
    const statements = migration.sql.split("--> statement-breakpoint").map((s) => s.trim()).filter(Boolean);
    const appliedHere = writeTransaction(sqlite, () => {
      // another process may have applied it meanwhile (two starting on one file)
      if (sqlite.query("SELECT 1 FROM schema_migrations WHERE tag = ?").get(migration.tag)) return false;
      for (const statement of statements) sqlite.run(statement);
      sqlite.run("INSERT INTO schema_migrations (tag, applied_at) VALUES (?, unixepoch())", [migration.tag]);
      return true;
    });
    if (appliedHere) applied.push(migration.tag);
  }
  return applied;
}

export function pendingMigrations(sqlite: Database): string[] {
  const exists = sqlite.query("SELECT 1 FROM sqlite_master WHERE type='table' AND name='schema_migrations'").get();
  const done = new Set(exists ? sqlite.query<{ tag: string }, []>("SELECT tag FROM schema_migrations").all().map((r) => r.tag) : []);
  return MIGRATIONS.filter((m) => !done.has(m.tag)).map((m) => m.tag);
}
