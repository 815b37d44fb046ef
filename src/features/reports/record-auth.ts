/**
 * A record's DKIM and SPF results as its row keeps them (`aggregate_records.dkim_results` and
 * `spf_results`): a JSON array of [domain, selector or scope, result] per result, with the
 * reporter's human result as a fourth element when it gave one; null when there is none. About
 * 30 bytes for a usual result, against a row of its own (~80 bytes with its index entry).
 */
import type { DkimAuthResult, SpfAuthResult } from "../../lib/reports/model";
import type { AuthResultView } from "./contract";

type Stored = [string, string | null, string, string?];

const encode = (list: readonly { domain: string; result: string; humanResult: string | null }[], second: (i: number) => string | null): string | null => {
  if (!list.length) return null;
  return JSON.stringify(list.map((a, i): Stored => (a.humanResult == null ? [a.domain, second(i), a.result] : [a.domain, second(i), a.result, a.humanResult])));
};

/** The `dkim_results` text of a record's DKIM results. */
export const dkimResultsText = (results: readonly DkimAuthResult[]): string | null => encode(results, (i) => results[i]!.selector);

/** The `spf_results` text of a record's SPF results. */
export const spfResultsText = (results: readonly SpfAuthResult[]): string | null => encode(results, (i) => results[i]!.scope);

const decode = (text: string | null): Stored[] => (text ? (JSON.parse(text) as Stored[]) : []);

/** A record's DKIM results as the API shows them. */
export const dkimResultsOf = (text: string | null): AuthResultView[] =>
  decode(text).map(([domain, selector, result, humanResult]) => ({ domain, selector: selector ?? null, result, humanResult: humanResult ?? null }));

/** A record's SPF results as the API shows them. */
export const spfResultsOf = (text: string | null): AuthResultView[] =>
  decode(text).map(([domain, scope, result, humanResult]) => ({ domain, scope: scope ?? null, result, humanResult: humanResult ?? null }));
