import { parseConfig } from "../config";
import type { Command } from "./commands";
import { migrateCommandDatabase } from "./database";

export const migrateCommand: Command = {
  summary: "apply pending database migrations and exit (serve also does this at start)",
  usage: "dmarcwarden migrate [--db PATH | --database-url URL]",
  async run({ argv, env }) {
    const config = parseConfig(argv, env, "migrate");
    const applied = await migrateCommandDatabase(config);
    console.log(applied.length ? `applied ${applied.length} migration(s): ${applied.join(", ")}` : "database is up to date");
    return 0;
  },
};
