import { parseConfig } from "../config";
import { seedDemo } from "../features/reports/demo";
import { geoFromConfig } from "../features/reports/geo";
import { RateLimiter } from "../http/rate-limit";
import { createLogger } from "../log";
import type { Command } from "./commands";
import { openCommandDatabase } from "./database";

export const seedDemoCommand: Command = {
  summary: "create the demo organization, its owner, domains and several weeks of reports (idempotent)",
  usage: "dmarcwarden seed-demo [--reset-password] [--db PATH | --database-url URL]",
  async run({ argv, env }) {
    const config = parseConfig(argv, env, "seed-demo");
    geoFromConfig(config); // a bad --geoip-db file stops here (one line, exit 2)
    const store = await openCommandDatabase(config);
    try {
      const log = createLogger("warn", (line) => process.stderr.write(`${line}\n`));
      const result = await seedDemo({ config, store, log, limiter: new RateLimiter(store), now: () => new Date() }, { resetPassword: config.resetPassword });
      console.log(describeDemoSeed(result));
      return 0;
    } finally {
      await store.close();
    }
  },
};

export function describeDemoSeed(result: Awaited<ReturnType<typeof seedDemo>>): string {
  return [
    `Demo organization ready (slug "demo"): ${result.ingested} report(s) added, ${result.duplicates} already there.`,
    result.password ? `Sign in as ${result.email} with password ${result.password}` : `Demo owner ${result.email} already exists; its password is unchanged (dmarcwarden seed-demo --reset-password makes a new one).`,
  ].join("\n");
}
