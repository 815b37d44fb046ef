/**
 * Many rows into one PostgreSQL statement as one JSON parameter: `INSERT … SELECT` over
 * `json_array_elements`, in the order given. One parameter instead of one per value, so a
 * report's records, auth results and roll-up rows cost a JSON.stringify to send rather than
 * drizzle building and binding thousands of parameters (and no 65,535-parameter limit).
 * `types[i]` is the PostgreSQL type of each row's value i (text needs no cast).
 */
import { sql, type SQL } from "drizzle-orm";
import type { StoreCore } from "../../db/store";

export type JsonRowType = "text" | "bigint" | "integer" | "boolean";

/** `r->>0, (r->>1)::bigint, …`: each value of a row as its column's type. */
function selectList(types: readonly JsonRowType[]): SQL {
  return sql.raw(types.map((type, i) => (type === "text" ? `r->>${i}` : `(r->>${i})::${type}`)).join(", "));
}

/**
 * Runs `${insert} SELECT ${fixed…}, <row values> FROM <rows> ${tail}`: `insert` names the table
 * and columns, `fixed` the values shared by every row (first in the column list), `tail` an
 * ON CONFLICT or RETURNING clause. Returns the statement's rows (RETURNING's, in row order).
 */
export async function insertJsonRows<T = Record<string, unknown>>(
  store: StoreCore,
  insert: SQL,
  fixed: SQL[],
  types: readonly JsonRowType[],
  rows: readonly (readonly unknown[])[],
  tail: SQL = sql``,
): Promise<T[]> {
  if (!rows.length) return [];
  const shared = fixed.length ? sql`${sql.join(fixed, sql`, `)}, ` : sql``;
  return store.rows<T>(sql`${insert} SELECT ${shared}${selectList(types)} FROM json_array_elements(${JSON.stringify(rows)}::text::json) WITH ORDINALITY AS x(r, n) ORDER BY n ${tail}`);
}
