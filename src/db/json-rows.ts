/**
 * Many rows into one statement as one JSON parameter, in the order given: one parameter instead
 * of one per value, so thousands of rows (a report's records, roll-ups, events, source names)
 * cost a JSON.stringify to send rather than drizzle building and binding a parameter per value
 * (tens of megabytes of garbage for a large report, and PostgreSQL's 65,535-parameter limit).
 *
 * - `insertJsonRows`: PostgreSQL only, `INSERT … SELECT` over `jsonb_array_elements` (the report
 *   writer's records, its roll-ups). `jsonb`: the text is parsed once and each
 *   value read by its index; over `json` every `r->>i` parsed its row's text again from the start
 *   (the report writer's statements took about a fifth more of the server's time).
 * - `insertRows`: both dialects (SQLite `json_each`), ROWS_PER_STATEMENT rows per statement.
 *
 * `types[i]` is the type of each row's value i (text needs no cast; on SQLite a JSON number, text
 * or null is read as that SQL value and a JSON boolean as 1 or 0).
 */
import { sql, type SQL } from "drizzle-orm";
import type { StoreCore } from "./store";

export type JsonRowType = "text" | "bigint" | "integer" | "boolean";

/** `r->>0, (r->>1)::bigint, …`: each value of a row as its column's type. */
function selectList(types: readonly JsonRowType[]): SQL {
  return sql.raw(types.map((type, i) => (type === "text" ? `r->>${i}` : `(r->>${i})::${type}`)).join(", "));
}

/** `a, b, `: the values every row shares, before the row's own (nothing when there are none). */
const sharedList = (fixed: readonly SQL[]): SQL => (fixed.length ? sql`${sql.join([...fixed], sql`, `)}, ` : sql``);

/**
 * PostgreSQL: runs `${insert} SELECT ${fixed…}, <row values> FROM <rows> ${tail}`: `insert` names
 * the table and columns, `fixed` the values shared by every row (first in the column list), `tail`
 * an ON CONFLICT or RETURNING clause. Returns the statement's rows (RETURNING's, in row order).
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
  return store.rows<T>(sql`${insert} ${jsonRowsSelect(fixed, types, rows)} ${tail}`);
}

/**
 * PostgreSQL: `SELECT ${fixed…}, <row values> FROM [${alsoFrom}, ]<rows> ORDER BY n`, the rows in
 * the order given (insertJsonRows' query without its INSERT and tail). `alsoFrom`: a relation
 * joined to every row, whose columns `fixed` may name (a CTE's one row).
 */
export function jsonRowsSelect(fixed: readonly SQL[], types: readonly JsonRowType[], rows: readonly (readonly unknown[])[], alsoFrom?: SQL): SQL {
  return sql`SELECT ${sharedList(fixed)}${selectList(types)} FROM ${alsoFrom ? sql`${alsoFrom}, ` : sql``}jsonb_array_elements(${JSON.stringify(rows)}::text::jsonb) WITH ORDINALITY AS x(r, n) ORDER BY n`;
}

/**
 * Rows per statement of `insertRows`: PostgreSQL takes at most 65,535 parameters per statement
 * where callers use one per row elsewhere (keys looked up or cleared in batches of as many), and
 * a statement's JSON stays a few hundred kilobytes.
 */
export const ROWS_PER_STATEMENT = 1_000;

export interface RowsInsert {
  table: string;
  /** the columns: first those of `fixed`, then those of each row's values */
  columns: readonly string[];
  /** values every row shares (an organization, a timestamp), first in `columns` */
  fixed?: readonly SQL[];
  /** the type of each row value (all text when omitted) */
  types?: readonly JsonRowType[];
  /** an `ON CONFLICT …` clause */
  tail?: SQL;
  /** rows per statement (ROWS_PER_STATEMENT by default) */
  perStatement?: number;
}

/**
 * Inserts `rows` into `into.table` on either store, in the order given, `into.perStatement` rows
 * per statement, each statement's rows as one JSON parameter (SQLite `json_each`, PostgreSQL
 * `jsonb_array_elements` through insertJsonRows). Inside the caller's `store.write`. Returns the
 * number of rows the statements returned (none without a RETURNING clause in `into.tail`).
 */
export async function insertRows(store: StoreCore, into: RowsInsert, rows: readonly (readonly unknown[])[]): Promise<number> {
  const fixed = into.fixed ?? [];
  const width = into.columns.length - fixed.length;
  const types = into.types ?? new Array<JsonRowType>(width).fill("text");
  if (types.length !== width) throw new Error(`insertRows into ${into.table}: ${width} row columns but ${types.length} types`);
  const insert = sql.raw(`INSERT INTO ${into.table} (${into.columns.join(", ")})`);
  const tail = into.tail ?? sql``;
  const per = Math.max(1, into.perStatement ?? ROWS_PER_STATEMENT);
  let returned = 0;
  for (let at = 0; at < rows.length; at += per) {
    const batch = rows.length <= per ? rows : rows.slice(at, at + per);
    if (store.dialect === "postgres") {
      returned += (await insertJsonRows(store, insert, [...fixed], types, batch, tail)).length;
      continue;
    }
    const values = sql.raw(types.map((_, i) => `value ->> ${i}`).join(", "));
    // WHERE true: SQLite reads an ON CONFLICT straight after FROM as a join constraint
    returned += (await store.rows(sql`${insert} SELECT ${sharedList(fixed)}${values} FROM json_each(${JSON.stringify(batch)}) WHERE true ORDER BY key ${tail}`)).length;
  }
  return returned;
}
