import { describe, expect, test } from "bun:test";
import { is, SQL, type Column } from "drizzle-orm";
import {
  foreignKey as pgForeignKey,
  getTableConfig as pgTableConfig,
  index as pgIndex,
  PgDialect,
  primaryKey as pgPrimaryKey,
  PgTable,
  pgTable,
  text as pgText,
  uniqueIndex as pgUniqueIndex,
} from "drizzle-orm/pg-core";
import { getTableConfig as sqliteTableConfig, SQLiteSyncDialect, SQLiteTable, sqliteTable, text as sqliteText, uniqueIndex as sqliteUniqueIndex } from "drizzle-orm/sqlite-core";
import * as sqliteSchema from "./schema";
import * as pgSchema from "./schema-pg";

/**
 * The PostgreSQL schema must stay the twin of the SQLite one: a service written once gets
 * either dialect's tables and must see the same names, columns, keys and JS values — with one
 * deliberate difference, for sharding by organisation (src/db/schema-pg/index.ts): in a tenant
 * table the PostgreSQL primary key is `[org_id, …the SQLite key]`, unique indexes and foreign
 * keys to other tenant tables gain `org_id`, and a unique index that gained it keeps a plain
 * lookup index on its SQLite columns. And one for ingest speed: the roll-ups keyed by domain have
 * no key of their own to organizations there (their key to domains implies it).
 */

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
type Tables<S> = { [K in keyof S as S[K] extends { $inferSelect: unknown } ? K : never]: S[K] };
type SqliteTables = Tables<typeof sqliteSchema>;
type PgTables = Tables<typeof pgSchema>;
/**
 * Rows read from either dialect have the same TypeScript type; inserts too, except keys PostgreSQL
 * generates (records' `id`, reports' `seq`, which SQLite's writer gives).
 */
type Generated = "id" | "seq";
type RowTypesMatch = {
  [K in keyof SqliteTables]: K extends keyof PgTables
    ? Equal<SqliteTables[K]["$inferSelect"], PgTables[K]["$inferSelect"]> extends true
      ? Exclude<keyof SqliteTables[K]["$inferInsert"], keyof PgTables[K]["$inferInsert"]> extends Generated
        ? Equal<Omit<SqliteTables[K]["$inferInsert"], Generated>, Omit<PgTables[K]["$inferInsert"], Generated>>
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
    unique: column.isUnique,
    enumValues: column.enumValues ?? null,
    default: defaultOf(column, toSql),
  };
}

type AnyConfig = ReturnType<typeof sqliteTableConfig> | ReturnType<typeof pgTableConfig>;
const configOf = (table: SQLiteTable | PgTable): AnyConfig => (is(table, SQLiteTable) ? sqliteTableConfig(table as SQLiteTable) : pgTableConfig(table as PgTable));

/** A tenant table: it has `org_id` and is not the tenant (`organizations`) itself. */
const isTenantTable = (table: SQLiteTable | PgTable) => {
  const config = configOf(table);
  return config.name !== "organizations" && config.columns.some((c: Column) => c.name === "org_id");
};

type TableDescription = ReturnType<typeof describeTable>;

function describeTable(table: SQLiteTable | PgTable) {
  const sqlite = is(table, SQLiteTable);
  const config: AnyConfig = configOf(table);
  const toSql = (s: SQL) => (sqlite ? sqliteDialect.sqlToQuery(s).sql : pgDialect.sqlToQuery(s).sql);
  const keyOf = new Map(Object.entries(table as unknown as Record<string, Column>).map(([key, column]) => [column, key]));
  return {
    name: config.name,
    columns: config.columns.map((c: Column) => describeColumn(keyOf.get(c) ?? "?", c, toSql)).sort((a, b) => a.name.localeCompare(b.name)),
    tenant: isTenantTable(table),
    /** one list however declared: a column's `primaryKey()` or the table's `primaryKey({ columns })` */
    primaryKey: [...config.columns.filter((c: Column) => c.primary).map((c: Column) => [c.name]), ...config.primaryKeys.map((pk) => pk.columns.map((c: Column) => c.name))],
    indexes: config.indexes
      .map((i) => ({ name: i.config.name ?? "", unique: i.config.unique, columns: (i.config.columns as { name?: string }[]).map((c) => c.name ?? "(expression)") }))
      .sort((a, b) => a.name.localeCompare(b.name)),
    foreignKeys: config.foreignKeys
      .map((fk) => {
        const ref = fk.reference();
        const foreign = sqlite ? sqliteTableConfig(ref.foreignTable as SQLiteTable).name : pgTableConfig(ref.foreignTable as PgTable).name;
        return {
          columns: ref.columns.map((c: Column) => c.name),
          foreignTable: foreign,
          foreignTenant: isTenantTable(ref.foreignTable as SQLiteTable | PgTable),
          foreignColumns: ref.foreignColumns.map((c: Column) => c.name),
          onDelete: fk.onDelete ?? "no action",
        };
      })
      .sort((a, b) => a.columns.join().localeCompare(b.columns.join())),
  };
}

/** Tables whose PostgreSQL twin has no key of its own to organizations (src/db/schema-pg/rollups.ts): each row's organization is checked through its domain's. */
const ORG_KEY_IMPLIED = new Set(["daily_domain_stats", "daily_sender_stats", "daily_country_stats", "dkim_selectors_seen"]);

/**
 * Foreign keys the PostgreSQL twin leaves to statement triggers (migrations 0029 and 0031): a
 * record's report, and a sender or country roll-up row's domain, whose deletion deletes the rows.
 */
const KEY_BY_TRIGGER = new Map([
  ["aggregate_records", "aggregate_reports"],
  ["daily_sender_stats", "domains"],
  ["daily_country_stats", "domains"],
]);

const withOrg = (columns: string[]) => (columns.includes("org_id") ? columns : ["org_id", ...columns]);

/**
 * What the PostgreSQL twin of a SQLite table must look like: the rule of src/db/schema-pg/index.ts
 * (and reports' `seq`, which PostgreSQL numbers and SQLite's report writer gives).
 */
function shardedTwin(given: TableDescription): TableDescription {
  const sqlite = given.name === "aggregate_reports" ? { ...given, columns: given.columns.map((c) => (c.name === "seq" && c.default === "none" ? { ...c, default: "generated key" } : c)) } : given;
  if (!sqlite.tenant) return sqlite;
  const indexes = sqlite.indexes.flatMap((i) =>
    i.unique && !i.columns.includes("org_id")
      ? [
          { ...i, columns: withOrg(i.columns) },
          { name: i.name.replace(/_unique$/, "_idx"), unique: false, columns: i.columns },
        ]
      : [i],
  );
  const sharded = sqlite.foreignKeys.map((fk) =>
    fk.foreignTenant ? { ...fk, columns: withOrg(fk.columns), foreignColumns: fk.columns.includes("org_id") ? fk.foreignColumns : ["org_id", ...fk.foreignColumns] } : fk,
  );
  // the roll-ups keyed by domain drop their own key to organizations: their (org_id, domain_id) key to domains, deleting with it, implies it,
  // whether a foreign key or kept by a trigger (SQLite too keeps daily_sender_stats' by one: its migration 0032)
  const implied =
    ORG_KEY_IMPLIED.has(sqlite.name) &&
    (KEY_BY_TRIGGER.get(sqlite.name) === "domains" || sharded.some((fk) => fk.foreignTable === "domains" && fk.onDelete === "cascade" && fk.columns.join() === "org_id,domain_id"));
  const byTrigger = KEY_BY_TRIGGER.get(sqlite.name);
  const foreignKeys = sharded.filter((fk) => !(implied && fk.foreignTable === "organizations") && !(byTrigger && fk.foreignTable === byTrigger && fk.onDelete === "cascade"));
  return {
    ...sqlite,
    primaryKey: sqlite.primaryKey.map(withOrg),
    indexes: indexes.sort((a, b) => a.name.localeCompare(b.name)),
    foreignKeys: foreignKeys.sort((a, b) => a.columns.join().localeCompare(b.columns.join())),
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
    expect(describeTable(pg!)).toEqual(shardedTwin(describeTable(sqlite)));
  });

  test("a column added to one schema only, or a changed nullability, is caught", () => {
    const twin = describeTable(sqliteTable("notes", { id: sqliteText("id").primaryKey(), body: sqliteText("body").notNull() }));
    expect(describeTable(pgTable("notes", { id: pgText("id").primaryKey(), body: pgText("body").notNull() }))).toEqual(twin);
    expect(describeTable(pgTable("notes", { id: pgText("id").primaryKey(), body: pgText("body").notNull(), extra: pgText("extra") }))).not.toEqual(twin);
    expect(describeTable(pgTable("notes", { id: pgText("id").primaryKey(), body: pgText("body") }))).not.toEqual(twin);
  });

  test("a tenant table: a PostgreSQL key, unique index or foreign key without org_id is caught, and so is any other drift", () => {
    const sqliteParent = sqliteTable("parents", { id: sqliteText("id").primaryKey(), orgId: sqliteText("org_id").notNull() });
    const sqliteNotes = sqliteTable(
      "notes",
      { id: sqliteText("id").primaryKey(), orgId: sqliteText("org_id").notNull(), parentId: sqliteText("parent_id").notNull().references(() => sqliteParent.id, { onDelete: "cascade" }), token: sqliteText("token").notNull() },
      (t) => [sqliteUniqueIndex("notes_token_unique").on(t.token)],
    );
    const twin = shardedTwin(describeTable(sqliteNotes));
    expect(twin.primaryKey).toEqual([["org_id", "id"]]);

    const pgParent = pgTable("parents", { id: pgText("id").notNull(), orgId: pgText("org_id").notNull() }, (t) => [pgPrimaryKey({ columns: [t.orgId, t.id] })]);
    type Shape = { key?: "id" | "org_id, id"; unique?: "token" | "org_id, token"; lookup?: boolean; fk?: "single" | "composite"; extra?: boolean };
    const pgNotes = ({ key = "org_id, id", unique = "org_id, token", lookup = true, fk = "composite", extra = false }: Shape = {}) =>
      pgTable(
        "notes",
        {
          id: key === "id" ? pgText("id").primaryKey() : pgText("id").notNull(),
          orgId: pgText("org_id").notNull(),
          parentId: fk === "single" ? pgText("parent_id").notNull().references(() => pgParent.id, { onDelete: "cascade" }) : pgText("parent_id").notNull(),
          token: pgText("token").notNull(),
          ...(extra ? { extra: pgText("extra") } : {}),
        },
        (t) => [
          ...(key === "org_id, id" ? [pgPrimaryKey({ columns: [t.orgId, t.id] })] : []),
          ...(fk === "composite" ? [pgForeignKey({ columns: [t.orgId, t.parentId], foreignColumns: [pgParent.orgId, pgParent.id] }).onDelete("cascade")] : []),
          unique === "token" ? pgUniqueIndex("notes_token_unique").on(t.token) : pgUniqueIndex("notes_token_unique").on(t.orgId, t.token),
          ...(lookup ? [pgIndex("notes_token_idx").on(t.token)] : []),
        ],
      );
    expect(describeTable(pgNotes())).toEqual(twin);
    expect(describeTable(pgNotes({ key: "id" }))).not.toEqual(twin);
    expect(describeTable(pgNotes({ unique: "token" }))).not.toEqual(twin);
    expect(describeTable(pgNotes({ lookup: false }))).not.toEqual(twin);
    expect(describeTable(pgNotes({ fk: "single" }))).not.toEqual(twin);
    expect(describeTable(pgNotes({ extra: true }))).not.toEqual(twin);
  });

  test("every tenant table's PostgreSQL primary key, unique indexes and foreign keys to tenant tables include org_id", () => {
    const tenant = pgTables.filter(([, table]) => isTenantTable(table));
    // the tables that carry org_id: every one but the tenant itself and account or global tables
    expect(tenant.length).toBeGreaterThan(20);
    const lacking: string[] = [];
    for (const [name, table] of tenant) {
      const d = describeTable(table);
      if (d.primaryKey.length !== 1 || !d.primaryKey[0]!.includes("org_id")) lacking.push(`${name}: primary key ${JSON.stringify(d.primaryKey)}`);
      for (const i of d.indexes) if (i.unique && !i.columns.includes("org_id")) lacking.push(`${name}: unique index ${i.name}`);
      for (const fk of d.foreignKeys) if (fk.foreignTenant && (!fk.columns.includes("org_id") || !fk.foreignColumns.includes("org_id"))) lacking.push(`${name}: foreign key ${fk.columns.join()} → ${fk.foreignTable}`);
      for (const c of configOf(table).columns) if (c.isUnique) lacking.push(`${name}: unique column ${c.name}`);
    }
    expect(lacking).toEqual([]);
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
