import { parseConfig } from "../config";
import { migrateDatabase } from "../db";
import type { Command } from "./commands";

export const migrateCommand: Command = {
  summary: "apply pending database migrations and exit (serve also does this at start)",
  usage: "dmarcwarden migrate [--db PATH | --database-url URL]",
  async run({ argv, env }) {
    const config = parseConfig(argv, env, "migrate");
    const applied = await migrateDatabase(config);
    console.log(applied.length ? `applied ${applied.length} migration(s): ${applied.join(", ")}` : "database is up to date");
    return 0;
  },
};
