import type { SpaAssets } from "../http/spa";

/** What a CLI command receives: its arguments (after the command word) and the embedded UI. */
export interface CommandContext {
  argv: string[];
  env: Record<string, string | undefined>;
  assets?: SpaAssets;
}

export interface Command {
  summary: string;
  usage: string;
  run(ctx: CommandContext): Promise<number>;
}
