/**
 * Writes the flag tables of docs/operations/configuration.md from the one table of flags that
 * `--help` prints, so the document cannot drift from the commands. A test fails when the file
 * is out of date; `bun scripts/docs-config.ts` brings it up to date.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { FLAGS, type FlagSpec } from "../src/config";
import { COMMANDS } from "../src/main";

export const CONFIGURATION_DOC = "docs/operations/configuration.md";
const BEGIN = "<!-- flags:begin (written by scripts/docs-config.ts from the commands' --help) -->";
const END = "<!-- flags:end -->";

const cell = (text: string) => text.replaceAll("|", "\\|");

/** One table per command: flag, environment variable, default and what it does. */
export function renderFlagTables(): string {
  const flags = FLAGS as readonly FlagSpec[];
  const parts: string[] = [];
  for (const command of Object.keys(COMMANDS)) {
    const rows = flags.filter((f) => f.commands.includes("*") || f.commands.includes(command));
    parts.push(`### \`dmarcwarden ${command}\``, "");
    if (!rows.length) {
      parts.push("No flags.", "");
      continue;
    }
    parts.push("| flag | environment | default | meaning |", "|---|---|---|---|");
    for (const f of rows) {
      const shown = Array.isArray(f.default) ? f.default.join(",") : f.default;
      const def = f.kind === "bool" ? "off" : shown === undefined || shown === "" ? "—" : `\`${shown}\``;
      const flag = `\`--${f.name}${f.kind === "bool" ? "" : ` ${f.value ?? "VALUE"}`}\``;
      parts.push(`| ${flag} | \`${f.env}\` | ${def} | ${cell(f.help)} |`);
    }
    parts.push("");
  }
  return `${BEGIN}\n\n${parts.join("\n").trimEnd()}\n\n${END}`;
}

/** The document with its flag tables as the commands have them now. */
export function configurationDoc(root: string): { current: string; wanted: string } {
  const current = readFileSync(join(root, CONFIGURATION_DOC), "utf8");
  const start = current.indexOf(BEGIN);
  const end = current.indexOf(END);
  if (start < 0 || end < start) throw new Error(`${CONFIGURATION_DOC} has lost its flag markers`);
  return { current, wanted: current.slice(0, start) + renderFlagTables() + current.slice(end + END.length) };
}

if (import.meta.main) {
  const root = join(import.meta.dir, "..");
  const { current, wanted } = configurationDoc(root);
  if (current !== wanted) writeFileSync(join(root, CONFIGURATION_DOC), wanted);
  console.log(current === wanted ? `${CONFIGURATION_DOC} is up to date` : `${CONFIGURATION_DOC} written`);
}
