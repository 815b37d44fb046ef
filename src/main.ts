#!/usr/bin/env bun
/** CLI entry: `dmarcwarden <command> [flags]`. Each command has --help. */
import { ConfigError, flagHelp } from "./config";
import type { Command, CommandContext } from "./cli/commands";
import type { SpaAssets } from "./http/spa";
import { VERSION } from "./version";

/**
 * The command table. Features add their commands here (check, ingest, seed-demo, …). Each is
 * loaded when it runs, so a command starts without the others' libraries (serve starts faster).
 */
export const COMMANDS: Record<string, () => Promise<Command>> = {
  serve: async () => (await import("./cli/serve")).serveCommand,
  migrate: async () => (await import("./cli/migrate")).migrateCommand,
  check: async () => (await import("./cli/check")).checkCommand,
  ingest: async () => (await import("./cli/ingest")).ingestCommand,
  "seed-demo": async () => (await import("./cli/seed-demo")).seedDemoCommand,
  "migrate-store": async () => (await import("./cli/migrate-store")).migrateStoreCommand,
  digest: async () => (await import("./cli/digest")).digestCommand,
};

export async function usage(): Promise<string> {
  const width = Math.max(...Object.keys(COMMANDS).map((c) => c.length)) + 2;
  const commands = await Promise.all(Object.entries(COMMANDS).map(async ([name, load]) => [name, await load()] as const));
  return [
    `dmarcwarden ${VERSION} — DMARC / SPF / DKIM monitoring`,
    "",
    "Usage: dmarcwarden <command> [flags]     (no command means serve)",
    "",
    "Commands:",
    ...commands.map(([name, c]) => `  ${name.padEnd(width)}${c.summary}`),
    "",
    "Run 'dmarcwarden <command> --help' for a command's flags. Every flag has an environment twin.",
  ].join("\n");
}

export async function run(argv: string[], options: { assets?: SpaAssets; env?: Record<string, string | undefined> } = {}): Promise<number> {
  const env = options.env ?? process.env;
  const [first, ...rest] = argv;
  if (first === "--help" || first === "-h" || first === "help") {
    console.log(await usage());
    return 0;
  }
  if (first === "--version" || first === "-v") {
    console.log(VERSION);
    return 0;
  }
  const name = !first || first.startsWith("--") ? "serve" : first;
  const args = !first || first.startsWith("--") ? argv : rest;
  const load = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  if (!load) {
    console.error(`dmarcwarden: unknown command "${name}". Run 'dmarcwarden --help' for the list.`);
    return 2;
  }
  const command = await load();
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
