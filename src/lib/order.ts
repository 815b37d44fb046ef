/**
 * Orderings that match the stores': sums computed in the server must rank and pick exactly as
 * the SQL they replace (ORDER BY on ASCII keys, MAX() of a text column).
 */

/** Text order by UTF-16 code unit, as both stores order these ASCII keys (never locale order). */
export function byCodeUnit(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The greater of two texts as MAX() picks it: nulls ignored. */
export function greaterText(a: string | null, b: string | null): string | null {
  return a === null ? b : b === null || a > b ? a : b;
}
