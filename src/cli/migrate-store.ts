import { Database } from "bun:sqlite";
import { existsSync } from "node:fs";
import { SQL } from "bun";
import { drizzle as drizzlePg } from "drizzle-orm/bun-sql";
import { drizzle as drizzleSqlite } from "drizzle-orm/bun-sqlite";
import { parseConfig } from "../config";
import { redactDatabaseUrl as redactUrl } from "../db";
import { copySqliteToPostgres, CopyRefusedError } from "../db/copy-store";
import { pendingMigrations } from "../db/migrate";
import { applyPgMigrations } from "../db/migrate-pg";
import * as pgSchema from "../db/schema-pg";
import * as sqliteSchema from "../db/schema";
import type { Command } from "./commands";


export const migrateStoreCommand: Command = {
  summary: "copy a SQLite database into an empty PostgreSQL database (every table, ids kept, counts verified)",
  usage: "dmarcwarden migrate-store --from PATH --to postgres://user:pass@host:port/db",
  async run({ argv, env }) {
    const config = parseConfig(argv, env, "migrate-store");
    const from = config.from;
    const to = config.to;
    if (!from || !to) {
      console.error("migrate-store needs --from PATH (the SQLite file) and --to postgres://… (an empty PostgreSQL database)");
      return 2;
    }
    if (!/^postgres(ql)?:\/\//.test(to)) {
      console.error(`--to must be a postgres:// URL, not ${redactUrl(to)}`);
      return 2;
    }
    if (!existsSync(from)) {
      console.error(`--from: ${from} does not exist`);
      return 2;
    }
    const sqlite = new Database(from, { readonly: true });
    const pending = pendingMigrations(sqlite);
    if (pending.length) {
      sqlite.close();
      console.error(`${from} has migrations not yet applied (${pending.join(", ")}): run "dmarcwarden migrate --db ${from}" first`);
      return 2;
    }
    const client = new SQL(to);
    try {
      const applied = await applyPgMigrations(client);
      if (applied.length) console.log(`PostgreSQL: applied ${applied.length} migration(s)`);
      const started = performance.now();
      const result = await copySqliteToPostgres(drizzleSqlite(sqlite, { schema: sqliteSchema }), drizzlePg({ client, schema: pgSchema }), (table, rows) => {
        if (rows % 100_000 === 0) console.log(`  ${table}: ${rows} rows…`);
      });
      const width = Math.max(...result.map((r) => r.table.length));
      for (const r of result) console.log(`${r.table.padEnd(width)}  ${String(r.source).padStart(10)} → ${String(r.target).padStart(10)}${r.source === r.target ? "" : "  MISMATCH"}`);
      const mismatched = result.filter((r) => r.source !== r.target);
      if (mismatched.length) {
        console.error(`row counts differ for ${mismatched.map((r) => r.table).join(", ")}`);
        return 1;
      }
      const rows = result.reduce((n, r) => n + r.target, 0);
      console.log(`copied ${rows} rows in ${result.length} tables to ${redactUrl(to)} in ${((performance.now() - started) / 1000).toFixed(1)} s; counts verified`);
      return 0;
    } catch (error) {
      if (error instanceof CopyRefusedError) {
        console.error(error.message);
        return 2;
      }
      console.error(`migrate-store failed, nothing was copied: ${error instanceof Error ? error.message : String(error)}`);
      return 1;
    } finally {
      sqlite.close();
      await client.close();
    }
  },
};
