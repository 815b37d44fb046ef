/**
 * Copies a SQLite database into an empty PostgreSQL database (`dmarcwarden migrate-store`):
 * every table, ids kept, in one PostgreSQL transaction (all of it or nothing), then the row
 * counts of both sides compared. Tables go parents first (by their foreign keys); rows of a
 * self-referencing table (organisations and their MSP parent) go parents first too.
 */
import { asc, getTableColumns, getTableName, gt, is, sql } from "drizzle-orm";
import type { BunSQLDatabase } from "drizzle-orm/bun-sql";
import type { BunSQLiteDatabase } from "drizzle-orm/bun-sqlite";
import { PgTable } from "drizzle-orm/pg-core";
import { SQLiteTable, getTableConfig as sqliteTableConfig } from "drizzle-orm/sqlite-core";
import * as pgSchema from "./schema-pg";
import * as sqliteSchema from "./schema";

/** PostgreSQL takes at most 65,535 parameters in one statement. */
const MAX_PARAMETERS = 60_000;
/** rows read from SQLite at a time, so a database of millions of records is never held whole */
const READ_PAGE = 20_000;
/** tables the target's triggers fill as the rows they follow are copied (one roll-up version per organization) */
const MADE_BY_TRIGGERS = new Set(["rollup_versions"]);

export interface TableCopy {
  table: string;
  source: number;
  target: number;
}

export class CopyRefusedError extends Error {}

interface TablePair {
  name: string;
  lite: SQLiteTable;
  pg: PgTable;
  parents: string[];
}

function tablePairs(): TablePair[] {
  const pairs: TablePair[] = [];
  for (const [exportName, lite] of Object.entries(sqliteSchema)) {
    if (!is(lite, SQLiteTable)) continue;
    const pg = (pgSchema as Record<string, unknown>)[exportName];
    if (!is(pg, PgTable)) throw new Error(`the PostgreSQL schema has no table ${exportName}`);
    const config = sqliteTableConfig(lite);
    const parents = config.foreignKeys.map((fk) => getTableName(fk.reference().foreignTable)).filter((p) => p !== config.name);
    pairs.push({ name: config.name, lite, pg, parents });
  }
  // parents first
  const ordered: TablePair[] = [];
  const placed = new Set<string>();
  while (ordered.length < pairs.length) {
    const ready = pairs.filter((p) => !placed.has(p.name) && p.parents.every((parent) => placed.has(parent)));
    if (!ready.length) throw new Error("foreign keys form a cycle between tables");
    for (const p of ready) {
      ordered.push(p);
      placed.add(p.name);
    }
  }
  return ordered;
}

/** A self-reference (organizations.parent_id) as [column key, referenced key], if the table has one. */
function selfReference(pair: TablePair): [string, string] | null {
  const config = sqliteTableConfig(pair.lite);
  for (const fk of config.foreignKeys) {
    const ref = fk.reference();
    if (getTableName(ref.foreignTable) !== config.name) continue;
    const keyOf = (columnName: string) => Object.entries(getTableColumns(pair.lite)).find(([, c]) => c.name === columnName)![0];
    return [keyOf(ref.columns[0]!.name), keyOf(ref.foreignColumns[0]!.name)];
  }
  return null;
}

/** Orders rows so that a row's parent (same table) comes before it. */
function parentsFirst(rows: Record<string, unknown>[], [parentKey, idKey]: [string, string]): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  const done = new Set<unknown>();
  let pending = rows;
  while (pending.length) {
    const next = pending.filter((r) => r[parentKey] != null && !done.has(r[parentKey]));
    const now = pending.filter((r) => r[parentKey] == null || done.has(r[parentKey]));
    if (!now.length) throw new Error("rows reference parents that do not exist");
    for (const r of now) {
      out.push(r);
      done.add(r[idKey]);
    }
    pending = next;
  }
  return out;
}

const hasIdentity = (pg: PgTable) => Object.values(getTableColumns(pg)).some((c) => (c as unknown as { generatedIdentity?: unknown }).generatedIdentity);

export async function countRows(db: BunSQLDatabase<any> | BunSQLiteDatabase<any>, dialect: "sqlite" | "postgres", table: string): Promise<number> {
  const query = sql`SELECT count(*) AS n FROM ${sql.identifier(table)}`;
  const rows = dialect === "sqlite" ? (db as BunSQLiteDatabase).all<{ n: number }>(query) : [...((await (db as BunSQLDatabase).execute(query)) as unknown as { n: string }[])];
  return Number(rows[0]?.n ?? 0);
}

/**
 * Copies every table of `source` (a migrated SQLite database) into `target` (a migrated, empty
 * PostgreSQL database). Throws CopyRefusedError when the target already holds rows.
 */
export async function copySqliteToPostgres(source: BunSQLiteDatabase<any>, target: BunSQLDatabase<any>, progress: (table: string, rows: number) => void = () => {}): Promise<TableCopy[]> {
  const pairs = tablePairs();
  for (const pair of pairs) {
    const n = await countRows(target, "postgres", pair.name);
    if (n > 0) throw new CopyRefusedError(`The target database already holds data (${n} rows in ${pair.name}); migrate-store copies into an empty database only.`);
  }
  await target.transaction(async (tx) => {
    for (const pair of pairs) {
      if (MADE_BY_TRIGGERS.has(pair.name)) continue;
      const columns = Object.keys(getTableColumns(pair.lite)).length;
      const batch = Math.max(1, Math.floor(MAX_PARAMETERS / columns));
      const primary = sqliteTableConfig(pair.lite).primaryKeys[0]?.columns ?? Object.values(getTableColumns(pair.lite)).filter((c) => c.primary);
      const self = selfReference(pair);
      let copied = 0;
      // keyset paging on a one-column primary key (fast at millions of rows); offset otherwise
      const key = primary.length === 1 ? primary[0]! : null;
      const keyName = key ? Object.entries(getTableColumns(pair.lite)).find(([, c]) => c === key)![0] : "";
      let after: unknown = undefined;
      for (let offset = 0; ; offset += READ_PAGE) {
        const query = source.select().from(pair.lite).$dynamic();
        if (key && after !== undefined) query.where(gt(key, after));
        query.orderBy(...primary.map((c) => asc(c)));
        // a self-referencing table (organisations) is read whole, so parents can go first
        if (!self) query.limit(READ_PAGE);
        if (!key && !self) query.offset(offset);
        let rows = (await query) as Record<string, unknown>[];
        if (!rows.length) break;
        if (key) after = rows[rows.length - 1]![keyName];
        if (self) rows = parentsFirst(rows, self);
        for (let i = 0; i < rows.length; i += batch) {
          const chunk = rows.slice(i, i + batch);
          const insert = hasIdentity(pair.pg) ? tx.insert(pair.pg).overridingSystemValue() : tx.insert(pair.pg);
          await (insert as ReturnType<typeof tx.insert>).values(chunk as never);
        }
        copied += rows.length;
        progress(pair.name, copied);
        if (self || rows.length < READ_PAGE) break;
      }
      if (hasIdentity(pair.pg)) {
        // identity columns continue after the copied ids
        const column = Object.values(getTableColumns(pair.pg)).find((c) => (c as unknown as { generatedIdentity?: unknown }).generatedIdentity)!;
        await tx.execute(
          sql`SELECT setval(pg_get_serial_sequence(${pair.name}, ${column.name}), GREATEST((SELECT COALESCE(MAX(${sql.identifier(column.name)}), 0) FROM ${sql.identifier(pair.name)}), 1), (SELECT COUNT(*) > 0 FROM ${sql.identifier(pair.name)}))`,
        );
      }
    }
  });
  const result: TableCopy[] = [];
  for (const pair of pairs) result.push({ table: pair.name, source: await countRows(source, "sqlite", pair.name), target: await countRows(target, "postgres", pair.name) });
  return result;
}
