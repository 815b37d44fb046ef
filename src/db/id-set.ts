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
  const json = JSON.stringify(ids);
  return dialect === "postgres" ? sql`${column} = ANY(ARRAY(SELECT json_array_elements_text(${json}::text::json)))` : sql`${column} IN (SELECT value FROM json_each(${json}))`;
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
