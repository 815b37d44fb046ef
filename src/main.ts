#!/usr/bin/env bun
/** CLI entry: `dmarcwarden <command> [flags]`. Each command has --help. */
import { ConfigError, flagHelp } from "./config";
import { checkCommand } from "./cli/check";
import { digestCommand } from "./cli/digest";
import type { Command, CommandContext } from "./cli/commands";
import { ingestCommand } from "./cli/ingest";
import { migrateCommand } from "./cli/migrate";
import { migrateStoreCommand } from "./cli/migrate-store";
import { seedDemoCommand } from "./cli/seed-demo";
import { serveCommand } from "./cli/serve";
import type { SpaAssets } from "./http/spa";
import { VERSION } from "./version";

/** The command table. Features add their commands here (check, ingest, seed-demo, …). */
export const COMMANDS: Record<string, Command> = {
  serve: serveCommand,
  migrate: migrateCommand,
  check: checkCommand,
  ingest: ingestCommand,
  "seed-demo": seedDemoCommand,
  "migrate-store": migrateStoreCommand,
  digest: digestCommand,
};

export function usage(): string {
  const width = Math.max(...Object.keys(COMMANDS).map((c) => c.length)) + 2;
  return [
    `dmarcwarden ${VERSION} — DMARC / SPF / DKIM monitoring`,
    "",
    "Usage: dmarcwarden <command> [flags]     (no command means serve)",
    "",
    "Commands:",
    ...Object.entries(COMMANDS).map(([name, c]) => `  ${name.padEnd(width)}${c.summary}`),
    "",
    "Run 'dmarcwarden <command> --help' for a command's flags. Every flag has an environment twin.",
  ].join("\n");
}

export async function run(argv: string[], options: { assets?: SpaAssets; env?: Record<string, string | undefined> } = {}): Promise<number> {
  const env = options.env ?? process.env;
  const [first, ...rest] = argv;
  if (first === "--help" || first === "-h" || first === "help") {
    console.log(usage());
    return 0;
  }
  if (first === "--version" || first === "-v") {
    console.log(VERSION);
    return 0;
  }
  const name = !first || first.startsWith("--") ? "serve" : first;
  const args = !first || first.startsWith("--") ? argv : rest;
  const command = COMMANDS[name];
  if (!command) {
    console.error(`dmarcwarden: unknown command "${name}". Run 'dmarcwarden --help' for the list.`);
    return 2;
  }
  if (args.includes("--help") || args.includes("-h")) {
    console.log(`Usage: ${command.usage}\n\n${command.summary}\n\nFlags:\n${flagHelp(name)}`);
    return 0;
  }
  const ctx: CommandContext = { argv: args, env, assets: options.assets };
  try {
    return await command.run(ctx);
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(`dmarcwarden: ${error.message}`);
      return 2;
    }
    throw error;
  }
}

if (import.meta.main) {
  const code = await run(process.argv.slice(2), { assets: undefined });
  if (code !== 0) process.exit(code);
}
