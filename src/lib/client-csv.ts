/**
 * Bulk onboarding's CSV: one `client name, domain` pair per line (RFC 4180 quoting, so a
 * client name may hold a comma inside quotes). Blank lines are skipped, and so is a first line
 * that names the columns ("client name, domain"). Each data line is checked on its own: a bad
 * line gets one clear message and the others go on.
 */
import { normalizeDomainInput } from "./domain-name";
import { splitCsvLine } from "./reports/senders";

export type ClientCsvRow =
  | { line: number; ok: true; clientName: string; domain: string }
  | { line: number; ok: false; clientName: string; domain: string; error: string };

export const CLIENT_NAME_MIN = 2;
export const CLIENT_NAME_MAX = 100;

const HEADER = /^\s*(client|organi[sz]ation|client name|client organi[sz]ation|name)\s*$/i;

/** The data lines of the CSV, numbered as in the file (from 1). */
export function parseClientCsv(csv: string): ClientCsvRow[] {
  const rows: ClientCsvRow[] = [];
  const lines = csv.replace(/^\uFEFF/, "").split(/\r\n|\r|\n/);
  const first = lines.findIndex((l) => l.trim() !== "");
  lines.forEach((text, index) => {
    const line = index + 1;
    if (!text.trim()) return;
    const cells = splitCsvLine(text).map((c) => c.trim());
    if (index === first && cells.length === 2 && HEADER.test(cells[0]!) && /^\s*domain(\s*name)?\s*$/i.test(cells[1]!)) return;
    const clientName = cells[0] ?? "";
    const domain = cells[1] ?? "";
    const fail = (error: string): ClientCsvRow => ({ line, ok: false, clientName, domain, error });
    if (cells.length !== 2) return void rows.push(fail(`Expected 2 columns (client name, domain), found ${cells.length}.`));
    if (clientName.length < CLIENT_NAME_MIN) return void rows.push(fail(`Organization name must be at least ${CLIENT_NAME_MIN} characters`));
    if (clientName.length > CLIENT_NAME_MAX) return void rows.push(fail(`Organization name must be at most ${CLIENT_NAME_MAX} characters`));
    const checked = normalizeDomainInput(domain);
    if (!checked.ok) return void rows.push(fail(checked.message));
    rows.push({ line, ok: true, clientName, domain: checked.domain });
  });
  return rows;
}

/** How two client names compare: trimmed, inner spaces collapsed, case-insensitive. */
export function clientNameKey(name: string): string {
  return name.trim().replace(/\s+/g, " ").toLowerCase();
}
