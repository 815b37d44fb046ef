import { existsSync } from "node:fs";
import { ConfigError, type Config } from "../config";
import type { Logger } from "../log";
import { describeDatabase, migrateDatabase, openDatabase, type Store } from "../db";

/**
 * A database that cannot be opened (a folder that cannot be created, a file that is not a
 * database, a PostgreSQL server that refuses) stops the command with one line naming the flag,
 * not a stack trace. The URL is shown without its password.
 */
function cannotOpen(config: Config, error: unknown): ConfigError {
  const flag = config.databaseUrl ? "--database-url" : "--db";
  const reason = error instanceof Error ? error.message.split("\n")[0] : String(error);
  return new ConfigError(`${flag} ${describeDatabase(config)}: cannot open the database (${reason})`);
}

/** Opens the configured database (creating a SQLite file when missing), or says in one line why not. */
export async function openCommandDatabase(config: Config, log?: Logger): Promise<Store> {
  try {
    return await openDatabase(config, { log });
  } catch (error) {
    throw cannotOpen(config, error);
  }
}

/** Applies pending migrations, or says in one line why the database cannot be opened. */
export async function migrateCommandDatabase(config: Config): Promise<string[]> {
  try {
    return await migrateDatabase(config);
  } catch (error) {
    throw cannotOpen(config, error);
  }
}

/**
 * Opens the database of a command that works on existing data (ingest, digest). A SQLite file
 * that is not there is refused before anything is written: a mistyped --db must not leave an
 * empty database behind (serve, migrate and seed-demo create one on purpose).
 */
export async function openExistingDatabase(config: Config): Promise<Store> {
  if (!config.databaseUrl && config.db !== ":memory:" && !existsSync(config.db)) {
    throw new ConfigError(`--db ${config.db}: no database there (check the path; dmarcwarden serve or migrate creates one)`);
  }
  return openCommandDatabase(config);
}
