/**
 * The one CSV writer of every export: RFC 4180 quoting, and text cells that a spreadsheet would
 * read as a formula neutralised by OWASP's rule (a leading single quote, and the cell quoted),
 * since reporters choose names, report ids, selectors and PTR names that end up in the cells.
 */

export type CsvCell = string | number | boolean | null | undefined;

/** A text cell starting with one of these is a formula (or a lead-in to one) to a spreadsheet. */
const FORMULA_START = /^[=+\-@\t\r]/;

/** One CSV field. */
export function csvField(value: CsvCell): string {
  if (value === null || value === undefined) return "";
  // numbers and booleans are the exporter's own values, not text a reporter chose: written as they are
  if (typeof value !== "string") return String(value);
  if (FORMULA_START.test(value)) return `"'${value.replace(/"/g, '""')}"`;
  return /[",\r\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}

/** One CSV line, CRLF-terminated. */
export const csvLine = (values: readonly CsvCell[]): string => `${values.map(csvField).join(",")}\r\n`;
