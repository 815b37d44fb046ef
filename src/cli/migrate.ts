import { parseConfig } from "../config";
import { openStore } from "../db";
import { applyMigrations } from "../db/migrate";
import type { Command } from "./commands";

export const migrateCommand: Command = {
  summary: "apply pending database migrations and exit (serve also does this at start)",
  usage: "dmarcwarden migrate [--db PATH]",
  async run({ argv, env }) {
    const config = parseConfig(argv, env, "migrate");
    const store = openStore(config.db, { migrate: false });
    const applied = applyMigrations(store.sqlite);
    store.close();
    console.log(applied.length ? `applied ${applied.length} migration(s): ${applied.join(", ")}` : "database is up to date");
    return 0;
  },
};
