/**
 * SQL pieces that read the same in SQLite and PostgreSQL, for raw queries and the builder.
 * Where the dialects have no common spelling, the helper takes the store's dialect.
 */
import { getTableColumns, is, sql, type SQL, type SQLWrapper } from "drizzle-orm";
import { getTableConfig as pgTableConfig, PgTable } from "drizzle-orm/pg-core";
import { getTableConfig as sqliteTableConfig, type SQLiteColumn, type SQLiteTable } from "drizzle-orm/sqlite-core";
import type { Dialect } from "./store";

/** The smaller of two non-null values (SQLite's scalar `min(a, b)`, PostgreSQL's `LEAST`). */
export const smaller = (a: SQLWrapper | number, b: SQLWrapper | number): SQL => sql`(CASE WHEN ${a} <= ${b} THEN ${a} ELSE ${b} END)`;

/** The larger of two values, a null `a` counting as smaller than anything. */
export const larger = (a: SQLWrapper | number, b: SQLWrapper | number): SQL => sql`(CASE WHEN ${a} IS NULL OR ${a} < ${b} THEN ${b} ELSE ${a} END)`;

/** The distinct non-null values of `expr` in a group, joined with commas, in no set order. */
export function distinctList(dialect: Dialect, expr: SQLWrapper): SQL {
  return dialect === "postgres" ? sql`string_agg(DISTINCT ${expr}, ',')` : sql`group_concat(DISTINCT ${expr})`;
}

/**
 * The columns of a table's primary key as the table's own dialect declares it, for
 * `onConflictDoUpdate({ target })` on a whole key: a tenant table's PostgreSQL key also holds
 * `org_id` (src/db/schema-pg/index.ts), so naming the SQLite key would match no constraint there.
 */
export function primaryKeyOf<T extends SQLiteTable>(table: T): SQLiteColumn[] {
  const config = is(table, PgTable) ? pgTableConfig(table as unknown as PgTable) : sqliteTableConfig(table);
  const names = [...config.columns.filter((c) => c.primary).map((c) => c.name), ...(config.primaryKeys[0]?.columns.map((c) => c.name) ?? [])];
  // the table's own column objects (a table-level key holds copies)
  const columns = Object.values(getTableColumns(table)) as SQLiteColumn[];
  return names.map((name) => columns.find((c) => c.name === name)!);
}
