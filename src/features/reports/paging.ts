/**
 * One page of a report list, and the headers that point at the next one: `Link` (rel="next")
 * and `X-Next-Cursor`. Pages continue by offset (?offset=, kept for older clients) or by an
 * opaque cursor (?cursor=: where the last page ended, so deep pages cost what the first does and
 * rows added meanwhile neither repeat nor go missing).
 */
import { sql, type SQL, type SQLWrapper } from "drizzle-orm";
import { ValidationError } from "../../http/errors";
import type { PageQuery } from "./contract";

export interface Page<T> {
  items: T[];
  /** where the next page starts, null on the last page */
  nextOffset: number | null;
  /** the cursor of the next page, null on the last page */
  nextCursor: string | null;
}

/** A cursor's position: the sort key of the last row shown (numbers and an id). */
export type CursorKey = [number, number, string];

export const encodeCursor = (key: CursorKey) => Buffer.from(JSON.stringify(key)).toString("base64url");

/** The position a cursor names; 400 for one this server did not give. */
export function decodeCursor(cursor: string): CursorKey {
  try {
    const key = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
    if (Array.isArray(key) && key.length === 3 && Number.isFinite(key[0]) && Number.isFinite(key[1]) && typeof key[2] === "string") return key as CursorKey;
  } catch {}
  throw new ValidationError("cursor is not one this server gave: start again without it.", { cursor: "Not a cursor from this list" });
}

/**
 * Rows after `key` in the order (a DESC, b DESC, id DESC): one row-value comparison, which both
 * SQLite and PostgreSQL answer from an index on (org_id, a, b, id). Times are epoch seconds.
 */
export function afterKey(a: SQLWrapper, b: SQLWrapper, id: SQLWrapper, key: CursorKey): SQL {
  return sql`(${a}, ${b}, ${id}) < (${key[0]}, ${key[1]}, ${key[2]})`;
}

/** Rows fetched with `limit + 1` → the page, and where the next one starts. */
export function pageOf<R, T>(rows: R[], query: PageQuery, view: (row: R) => T, keyOf: (row: R) => CursorKey): Page<T> {
  const { limit } = query;
  const more = rows.length > limit;
  const shown = more ? rows.slice(0, limit) : rows;
  return {
    items: shown.map(view),
    nextOffset: more && !query.cursor ? query.offset + limit : null,
    nextCursor: more && shown.length ? encodeCursor(keyOf(shown[shown.length - 1]!)) : null,
  };
}

const FILTERS = ["domain", "reporter", "from", "to", "q"] as const;

/**
 * Sets `X-Next-Cursor` and `Link: <…>; rel="next"` when more follow — by offset when the caller
 * paged by offset without filters (as before), else by cursor with the same filters — and
 * answers the page's items.
 */
export function sendPage<T>(set: { headers: Record<string, unknown> }, path: string, query: PageQuery, page: Page<T>): T[] {
  if (page.nextCursor) set.headers["x-next-cursor"] = page.nextCursor;
  const filtered = FILTERS.some((f) => query[f]) || query.failures;
  if (page.nextOffset !== null && !filtered) set.headers.link = `<${path}?limit=${query.limit}&offset=${page.nextOffset}>; rel="next"`;
  else if (page.nextCursor) {
    const params = new URLSearchParams({ limit: String(query.limit) });
    for (const f of FILTERS) if (query[f]) params.set(f, String(query[f]));
    if (query.failures) params.set("failures", "1");
    params.set("cursor", page.nextCursor);
    set.headers.link = `<${path}?${params}>; rel="next"`;
  }
  return page.items;
}
