import { describe, expect, test } from "bun:test";
import { is, SQL, type Column } from "drizzle-orm";
import { getTableConfig as pgTableConfig, PgDialect, PgTable, pgTable, text as pgText } from "drizzle-orm/pg-core";
import { getTableConfig as sqliteTableConfig, SQLiteSyncDialect, SQLiteTable, sqliteTable, text as sqliteText } from "drizzle-orm/sqlite-core";
import * as sqliteSchema from "./schema";
import * as pgSchema from "./schema-pg";

/**
 * The PostgreSQL schema must stay the twin of the SQLite one: a service written once gets
 * either dialect's tables and must see the same names, columns, keys and JS values.
 */

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
type Tables<S> = { [K in keyof S as S[K] extends { $inferSelect: unknown } ? K : never]: S[K] };
type SqliteTables = Tables<typeof sqliteSchema>;
type PgTables = Tables<typeof pgSchema>;
/** Rows read from either dialect have the same TypeScript type; inserts too, except keys PostgreSQL always generates. */
type RowTypesMatch = {
  [K in keyof SqliteTables]: K extends keyof PgTables
    ? Equal<SqliteTables[K]["$inferSelect"], PgTables[K]["$inferSelect"]> extends true
      ? Exclude<keyof SqliteTables[K]["$inferInsert"], keyof PgTables[K]["$inferInsert"]> extends "id"
        ? Equal<Omit<SqliteTables[K]["$inferInsert"], "id">, Omit<PgTables[K]["$inferInsert"], "id">>
        : false
      : false
    : false;
};
const rowTypesMatch: RowTypesMatch[keyof RowTypesMatch] extends true ? true : false = true;

/** What a SQL default means, so `(unixepoch())` and its PostgreSQL spelling compare equal. */
const SQL_DEFAULT_MEANINGS: Record<string, string> = {
  "(unixepoch())": "now, in epoch seconds",
  "(extract(epoch from now())::bigint)": "now, in epoch seconds",
};

const sqliteDialect = new SQLiteSyncDialect();
const pgDialect = new PgDialect();

function kindOf(column: Column): string {
  switch (column.columnType) {
    case "SQLiteText":
    case "PgText":
      return "text";
    case "SQLiteBoolean":
    case "PgBoolean":
      return "boolean";
    case "SQLiteInteger":
    case "PgInteger":
    case "PgBigInt53":
      return "integer";
    case "SQLiteReal":
    case "PgDoublePrecision":
      return "real";
    case "SQLiteTimestamp":
      return "time";
    case "PgCustomColumn": {
      // the `epoch` type: bigint seconds read as a Date
      const read = column.mapFromDriverValue("1700000000");
      if (column.getSQLType() === "bigint" && read instanceof Date && read.getTime() === 1_700_000_000_000) return "time";
      return `custom ${column.getSQLType()}`;
    }
    default:
      return column.columnType;
  }
}

function defaultOf(column: Column, toSql: (s: SQL) => string): string {
  if (column.generatedIdentity || (column as Column & { autoIncrement?: boolean }).autoIncrement) return "generated key";
  if (column.defaultFn) {
    const value = column.defaultFn();
    if (value instanceof Date) return "js: a Date";
    return `js: ${typeof value}${typeof value === "string" ? ` of ${value.length} characters` : ""}`;
  }
  if (column.default === undefined) return "none";
  if (is(column.default, SQL)) {
    const text = toSql(column.default);
    return `sql: ${SQL_DEFAULT_MEANINGS[text] ?? text}`;
  }
  return `value: ${JSON.stringify(column.default)}`;
}

function describeColumn(key: string, column: Column, toSql: (s: SQL) => string) {
  return {
    key,
    name: column.name,
    kind: kindOf(column),
    notNull: column.notNull,
    primary: column.primary,
    unique: column.isUnique,
    enumValues: column.enumValues ?? null,
    default: defaultOf(column, toSql),
  };
}

type AnyConfig = ReturnType<typeof sqliteTableConfig> | ReturnType<typeof pgTableConfig>;

function describeTable(table: SQLiteTable | PgTable) {
  const sqlite = is(table, SQLiteTable);
  const config: AnyConfig = sqlite ? sqliteTableConfig(table as SQLiteTable) : pgTableConfig(table as PgTable);
  const toSql = (s: SQL) => (sqlite ? sqliteDialect.sqlToQuery(s).sql : pgDialect.sqlToQuery(s).sql);
  const keyOf = new Map(Object.entries(table as unknown as Record<string, Column>).map(([key, column]) => [column, key]));
  return {
    name: config.name,
    columns: config.columns.map((c: Column) => describeColumn(keyOf.get(c) ?? "?", c, toSql)).sort((a, b) => a.name.localeCompare(b.name)),
    primaryKeys: config.primaryKeys.map((pk) => pk.columns.map((c: Column) => c.name)),
    indexes: config.indexes
      .map((i) => ({ name: i.config.name ?? "", unique: i.config.unique, columns: (i.config.columns as { name?: string }[]).map((c) => c.name) }))
      .sort((a, b) => a.name.localeCompare(b.name)),
    foreignKeys: config.foreignKeys
      .map((fk) => {
        const ref = fk.reference();
        const foreign = sqlite ? sqliteTableConfig(ref.foreignTable as SQLiteTable).name : pgTableConfig(ref.foreignTable as PgTable).name;
        return { columns: ref.columns.map((c: Column) => c.name), foreignTable: foreign, foreignColumns: ref.foreignColumns.map((c: Column) => c.name), onDelete: fk.onDelete ?? "no action" };
      })
      .sort((a, b) => a.columns.join().localeCompare(b.columns.join())),
  };
}

const sqliteTables = Object.entries(sqliteSchema).filter(([, v]) => is(v, SQLiteTable)) as [string, SQLiteTable][];
const pgTables = Object.entries(pgSchema).filter(([, v]) => is(v, PgTable)) as [string, PgTable][];

describe("the PostgreSQL schema is the twin of the SQLite schema", () => {
  test("the same exports: every table and every other value under the same name", () => {
    expect(Object.keys(pgSchema).sort()).toEqual(Object.keys(sqliteSchema).sort());
    expect(pgTables.map(([name]) => name).sort()).toEqual(sqliteTables.map(([name]) => name).sort());
    expect(pgSchema.ROLES).toEqual(sqliteSchema.ROLES);
    expect(rowTypesMatch).toBe(true);
  });

  test.each(sqliteTables.map(([name]) => name))("%s: same SQL name, columns, defaults, keys, indexes and foreign keys", (name) => {
    const pg = pgTables.find(([n]) => n === name)?.[1];
    expect(pg).toBeDefined();
    const sqlite = sqliteTables.find(([n]) => n === name)![1];
    expect(describeTable(pg!)).toEqual(describeTable(sqlite));
  });

  test("a column added to one schema only, or a changed nullability, is caught", () => {
    const twin = describeTable(sqliteTable("notes", { id: sqliteText("id").primaryKey(), body: sqliteText("body").notNull() }));
    expect(describeTable(pgTable("notes", { id: pgText("id").primaryKey(), body: pgText("body").notNull() }))).toEqual(twin);
    expect(describeTable(pgTable("notes", { id: pgText("id").primaryKey(), body: pgText("body").notNull(), extra: pgText("extra") }))).not.toEqual(twin);
    expect(describeTable(pgTable("notes", { id: pgText("id").primaryKey(), body: pgText("body") }))).not.toEqual(twin);
  });

  test("times are stored as epoch seconds and read back as the same Date in both dialects", () => {
    const at = new Date("2026-03-01T12:34:56Z");
    const sqliteColumn = sqliteSchema.sessions.expiresAt;
    const pgColumn = pgSchema.sessions.expiresAt;
    expect(pgColumn.mapToDriverValue(at)).toBe(sqliteColumn.mapToDriverValue(at));
    expect(pgColumn.mapToDriverValue(at)).toBe(at.getTime() / 1000);
    // the PostgreSQL driver hands int8 back as a string
    expect(pgColumn.mapFromDriverValue(String(at.getTime() / 1000))).toEqual(at);
    expect(pgColumn.mapFromDriverValue(BigInt(at.getTime() / 1000))).toEqual(at);
  });
});
