/** One page of a report list, and the `Link` header that points at the next one. */
import type { PageQuery } from "./contract";

export interface Page<T> {
  items: T[];
  /** where the next page starts, null on the last page */
  nextOffset: number | null;
}

/** Rows fetched with `limit + 1` → the page and whether another follows. */
export function pageOf<T>(rows: T[], { limit, offset }: PageQuery): Page<T> {
  return rows.length > limit ? { items: rows.slice(0, limit), nextOffset: offset + limit } : { items: rows, nextOffset: null };
}

/** Sets `Link: <path?limit=&offset=>; rel="next"` when more follow, and answers the page's items. */
export function sendPage<T>(set: { headers: Record<string, unknown> }, path: string, query: PageQuery, page: Page<T>): T[] {
  if (page.nextOffset !== null) set.headers.link = `<${path}?limit=${query.limit}&offset=${page.nextOffset}>; rel="next"`;
  return page.items;
}
