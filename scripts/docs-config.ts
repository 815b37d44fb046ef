/**
 * Writes the parts of the documents that the code already states, so they cannot drift: the flag
 * tables of docs/operations/configuration.md from the one table of flags that `--help` prints,
 * and the list of audit actions in docs/reference/audit-log.md from the one the log records. A
 * test fails when a file is out of date; `bun scripts/docs-config.ts` brings them up to date.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { FLAGS, type FlagSpec } from "../src/config";
import { AUDIT_ACTIONS } from "../src/features/audit/actions";
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

export const AUDIT_DOC = "docs/reference/audit-log.md";
const AUDIT_BEGIN = "<!-- audit-actions:begin (written by scripts/docs-config.ts from src/features/audit/actions.ts) -->";
const AUDIT_END = "<!-- audit-actions:end -->";

/** Every action the audit log records, with the words the Settings screen shows for it. */
export function renderAuditActions(): string {
  const rows = Object.entries(AUDIT_ACTIONS).map(([action, label]) => `| \`${action}\` | ${cell(label)} |`);
  return `${AUDIT_BEGIN}\n\n| action | shown as |\n|---|---|\n${rows.join("\n")}\n\n${AUDIT_END}`;
}

function withSection(root: string, file: string, begin: string, end: string, render: () => string): { current: string; wanted: string } {
  const current = readFileSync(join(root, file), "utf8");
  const start = current.indexOf(begin);
  const stop = current.indexOf(end);
  if (start < 0 || stop < start) throw new Error(`${file} has lost its markers ${begin}`);
  return { current, wanted: current.slice(0, start) + render() + current.slice(stop + end.length) };
}

/** The configuration page with its flag tables as the commands have them now. */
export function configurationDoc(root: string): { current: string; wanted: string } {
  return withSection(root, CONFIGURATION_DOC, BEGIN, END, renderFlagTables);
}

/** The audit log page with its list of actions as the log has them now. */
export function auditDoc(root: string): { current: string; wanted: string } {
  return withSection(root, AUDIT_DOC, AUDIT_BEGIN, AUDIT_END, renderAuditActions);
}

if (import.meta.main) {
  const root = join(import.meta.dir, "..");
  for (const [file, doc] of [[CONFIGURATION_DOC, configurationDoc], [AUDIT_DOC, auditDoc]] as const) {
    const { current, wanted } = doc(root);
    if (current !== wanted) writeFileSync(join(root, file), wanted);
    console.log(current === wanted ? `${file} is up to date` : `${file} written`);
  }
}
