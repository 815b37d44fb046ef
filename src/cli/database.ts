import { existsSync } from "node:fs";
import { ConfigError, type Config } from "../config";
import { openDatabase, type Store } from "../db";

/**
 * Opens the database of a command that works on existing data (ingest, digest). A SQLite file
 * that is not there is refused before anything is written: a mistyped --db must not leave an
 * empty database behind (serve, migrate and seed-demo create one on purpose).
 */
export async function openExistingDatabase(config: Config): Promise<Store> {
  if (!config.databaseUrl && config.db !== ":memory:" && !existsSync(config.db)) {
    throw new ConfigError(`--db ${config.db}: no database there (check the path; dmarcwarden serve or migrate creates one)`);
  }
  return openDatabase(config);
}
