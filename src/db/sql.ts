/**
 * SQL pieces that read the same in SQLite and PostgreSQL, for raw queries and the builder.
 * Where the dialects have no common spelling, the helper takes the store's dialect.
 */
import { sql, type SQL, type SQLWrapper } from "drizzle-orm";
import type { Dialect } from "./store";

/** The smaller of two non-null values (SQLite's scalar `min(a, b)`, PostgreSQL's `LEAST`). */
export const smaller = (a: SQLWrapper | number, b: SQLWrapper | number): SQL => sql`(CASE WHEN ${a} <= ${b} THEN ${a} ELSE ${b} END)`;

/** The larger of two values, a null `a` counting as smaller than anything. */
export const larger = (a: SQLWrapper | number, b: SQLWrapper | number): SQL => sql`(CASE WHEN ${a} IS NULL OR ${a} < ${b} THEN ${b} ELSE ${a} END)`;

/** The distinct non-null values of `expr` in a group, joined with commas, in no set order. */
export function distinctList(dialect: Dialect, expr: SQLWrapper): SQL {
  return dialect === "postgres" ? sql`string_agg(DISTINCT ${expr}, ',')` : sql`group_concat(DISTINCT ${expr})`;
}
