/**
 * A column that is one of many ids, with the ids bound as one parameter (a JSON array):
 * SQLite reads it with json_each, PostgreSQL as an array, and either probes the column's index
 * once per id. For statements over many organizations at once (the MSP portfolio): a list of
 * hundreds of placeholders costs more to build, parse and bind than the query itself, and the
 * statement's text no longer depends on how many ids there are.
 */
import { sql, type SQL, type SQLWrapper } from "drizzle-orm";
import type { Dialect } from "./store";

export function oneOf(dialect: Dialect, column: SQLWrapper, ids: readonly string[]): SQL {
  return dialect === "postgres" ? sql`${column} = ANY(${textArray(ids)}::text[])` : sql`${column} IN (SELECT value FROM json_each(${JSON.stringify(ids)}))`;
}

/**
 * PostgreSQL's text form of a text[] value (`{"a","b"}`), for a parameter the statement casts
 * to text[]: the parameter's type is then text[] itself, read once when bound, and every read
 * is planned with the ids as a constant array (PG_CONNECTION_SETTINGS), which the planner
 * counts (an index probe per id where that is cheaper) and a scan looks up in a hash table.
 * (An array built by a subquery, `ANY(ARRAY(SELECT json_array_elements_text(…)))`, is neither:
 * a table the planner scans compared each row with every id in turn, 4 ms of a 900-row domains
 * read at 300 ids.)
 */
export function textArray(values: readonly string[]): string {
  return `{${values.map((v) => `"${v.replace(/[\\"]/g, "\\$&")}"`).join(",")}}`;
}

/** Source addresses per statement when a read names them (far below SQLite's and PostgreSQL's parameter limits). */
export const IP_CHUNK = 500;

/**
 * `read` run on each slice of `list` of at most `size` items, one after the other in the list's
 * order, and the rows of all slices concatenated in that order: for statements that name their
 * values one placeholder each (an index probed per value), so no statement binds too many.
 */
export async function inChunks<V, T>(list: readonly V[], size: number, read: (chunk: V[]) => Promise<readonly T[]>): Promise<T[]> {
  const out: T[] = [];
  for (let i = 0; i < list.length; i += size) for (const row of await read(list.slice(i, i + size))) out.push(row);
  return out;
}
