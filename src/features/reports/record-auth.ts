/**
 * What a record's row keeps in a compact form: its From domains (`storedFroms`, `recordFroms`
 * below) and its DKIM and SPF results.
 *
 * A record's DKIM and SPF results as its row keeps them (`aggregate_records.dkim_results` and
 * `spf_results`): a JSON array of [domain, selector or scope, result] per result, with the
 * reporter's human result as a fourth element when it gave one; null when there is none. The
 * domain is written 0 when it is the record's header From domain, as most are (a signature or an
 * envelope of the organization's own domain): `[[0,"s1","pass"]]` for a usual DKIM result. About
 * 20-40 bytes a result, against a row of its own (~80 bytes with its index entry).
 */
import type { DkimAuthResult, SpfAuthResult } from "../../lib/reports/model";
import type { AuthResultView } from "./contract";

/** [domain (0: the record's header From), selector or scope, result, human result?] */
type Stored = [string | 0, string | null, string, string?];

/** JSON text of a value that is a string or null */
const jsonText = (v: string | null) => (v === null ? "null" : JSON.stringify(v));

/** JSON.stringify of the Stored list, written out directly (a record's results are many small arrays otherwise, per record written) */
const encode = (
  list: readonly { domain: string; result: string; humanResult: string | null }[],
  second: (i: number) => string | null,
  headerFrom: string | null,
): string | null => {
  if (!list.length) return null;
  let text = "[";
  for (let i = 0; i < list.length; i++) {
    const a = list[i]!;
    if (i) text += ",";
    text += `[${a.domain === headerFrom ? "0" : JSON.stringify(a.domain)},${jsonText(second(i) ?? null)},${JSON.stringify(a.result)}${a.humanResult == null ? "" : `,${JSON.stringify(a.humanResult)}`}]`;
  }
  return `${text}]`;
};

/** The `dkim_results` text of a record's DKIM results (`headerFrom`: the record's header From). */
export const dkimResultsText = (results: readonly DkimAuthResult[], headerFrom: string | null): string | null => encode(results, (i) => results[i]!.selector, headerFrom);

/** The `spf_results` text of a record's SPF results (`headerFrom`: the record's header From). */
export const spfResultsText = (results: readonly SpfAuthResult[], headerFrom: string | null): string | null => encode(results, (i) => results[i]!.scope, headerFrom);

const decode = (text: string | null): Stored[] => (text ? (JSON.parse(text) as Stored[]) : []);
const domainOf = (domain: string | 0, headerFrom: string | null) => (domain === 0 ? (headerFrom ?? "") : domain);

/** A record's DKIM results as the API shows them, from its `dkim_results` and header From. */
export const dkimResultsOf = (text: string | null, headerFrom: string | null): AuthResultView[] =>
  decode(text).map(([domain, selector, result, humanResult]) => ({ domain: domainOf(domain, headerFrom), selector: selector ?? null, result, humanResult: humanResult ?? null }));

/** A record's SPF results as the API shows them, from its `spf_results` and header From. */
export const spfResultsOf = (text: string | null, headerFrom: string | null): AuthResultView[] =>
  decode(text).map(([domain, scope, result, humanResult]) => ({ domain: domainOf(domain, headerFrom), scope: scope ?? null, result, humanResult: humanResult ?? null }));

/**
 * A record's header From and envelope From as its row keeps them: the header From as "" when it
 * is its report's policy domain, the envelope From as "" when it is the header From (most are, and
 * each saves its domain's bytes in every row). A reporter's empty element is read as null
 * (lib/reports/aggregate.ts), so "" is free to mean "the same".
 */
export function storedFroms(headerFrom: string | null, envelopeFrom: string | null, policyDomain: string): [string | null, string | null] {
  return [headerFrom !== null && headerFrom === policyDomain ? "" : headerFrom, envelopeFrom !== null && envelopeFrom === headerFrom ? "" : envelopeFrom];
}

/** A record's header From and envelope From as the reporter gave them, from its row and its report's policy domain. */
export function recordFroms(row: { headerFrom: string | null; envelopeFrom: string | null }, policyDomain: string): { headerFrom: string | null; envelopeFrom: string | null } {
  const headerFrom = row.headerFrom === "" ? policyDomain : row.headerFrom;
  return { headerFrom, envelopeFrom: row.envelopeFrom === "" ? headerFrom : row.envelopeFrom };
}

/**
 * A record row's From domains and DKIM and SPF results as the reporter gave them, from the row and
 * its report's policy domain: what every reader of records shows (the report detail, the sender
 * page's samples, the export).
 */
export function recordIdentifiers(
  row: { headerFrom: string | null; envelopeFrom: string | null; dkimResults: string | null; spfResults: string | null },
  policyDomain: string,
): { headerFrom: string | null; envelopeFrom: string | null; dkimResults: AuthResultView[]; spfResults: AuthResultView[] } {
  const { headerFrom, envelopeFrom } = recordFroms(row, policyDomain);
  return { headerFrom, envelopeFrom, dkimResults: dkimResultsOf(row.dkimResults, headerFrom), spfResults: spfResultsOf(row.spfResults, headerFrom) };
}
