import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { SQL } from "bun";
import { getTableName, is } from "drizzle-orm";
import { drizzle } from "drizzle-orm/bun-sql";
import { getTableConfig, PgTable, type PgColumn } from "drizzle-orm/pg-core";
import { fileCluster, postgresMissing } from "../../tests/support/migrations";
import { applyPgMigrations, MIGRATION_LOCK_KEY } from "./migrate-pg";
import { PG_MIGRATIONS } from "./migrations-pg.gen";
import * as pgSchema from "./schema-pg";

if (postgresMissing) console.log(`skipping the PostgreSQL migration tests: ${postgresMissing}`);

const ALL_TAGS = PG_MIGRATIONS.map((m) => m.tag);
const AT = new Date("2026-03-01T12:34:56Z");
/** over 32 bits: bigint columns must keep it */
const LARGE = 5_000_000_123;

const tables = (Object.values(pgSchema) as unknown[]).filter((v): v is PgTable => is(v, PgTable));

/** Tables ordered so that every table comes after the ones its foreign keys point to. */
function insertionOrder(): PgTable[] {
  const ordered: PgTable[] = [];
  const pending = [...tables];
  for (let round = 0; pending.length && round < tables.length; round++) {
    for (const table of [...pending]) {
      const targets = getTableConfig(table).foreignKeys.map((fk) => fk.reference().foreignTable).filter((t) => t !== table);
      if (targets.every((t) => ordered.includes(t as PgTable))) {
        ordered.push(table);
        pending.splice(pending.indexOf(table), 1);
      }
    }
  }
  expect(pending.map(getTableName)).toEqual([]);
  return ordered;
}

/** A value for every column a caller would set, pointing foreign keys at rows already written. */
function sampleRow(table: PgTable, written: Map<PgTable, Record<string, unknown>>): Record<string, unknown> {
  const config = getTableConfig(table);
  const row: Record<string, unknown> = {};
  for (const [key, column] of Object.entries(table as unknown as Record<string, PgColumn>)) {
    if (!config.columns.includes(column) || column.generatedIdentity) continue;
    // by name: a table-level foreign key holds its own column objects
    const fk = config.foreignKeys.find((f) => f.reference().columns.some((c) => c.name === column.name));
    if (fk) {
      const target = fk.reference().foreignTable as PgTable;
      if (target === table) continue;
      // a composite key (org_id, x_id) → (org_id, id): the target column in the same position
      const targetColumn = fk.reference().foreignColumns[fk.reference().columns.findIndex((c) => c.name === column.name)]!;
      const targetKey = Object.entries(target as unknown as Record<string, PgColumn>).find(([, c]) => c.name === targetColumn.name)![0];
      row[key] = written.get(target)![targetKey];
      continue;
    }
    switch (column.columnType) {
      case "PgText":
        row[key] = column.enumValues?.[0] ?? `${column.name}-${getTableName(table)}`;
        break;
      case "PgCustomColumn":
        row[key] = AT;
        break;
      case "PgBoolean":
        // the opposite of a `true` default, so the value read back is the one written
        row[key] = column.default !== true;
        break;
      case "PgInteger":
        row[key] = 42;
        break;
      case "PgBigInt53":
        row[key] = LARGE;
        break;
      default:
        throw new Error(`no sample value for ${getTableName(table)}.${column.name} (${column.columnType})`);
    }
  }
  return row;
}

const startedCluster = fileCluster();

describe.skipIf(postgresMissing !== null)("PostgreSQL migrations", () => {
  let cluster: Awaited<ReturnType<typeof startedCluster>>;
  const clients: SQL[] = [];
  const connect = (url: string) => {
    const client = new SQL(url);
    clients.push(client);
    return client;
  };

  beforeAll(async () => {
    cluster = await startedCluster();
  });

  afterAll(async () => {
    for (const client of clients) await client.close().catch(() => {});
  });

  test("every embedded migration applies once, and a second run changes nothing", async () => {
    const sql = connect(await cluster.createDatabase());
    expect(await applyPgMigrations(sql)).toEqual(ALL_TAGS);
    const tablesAfterFirst = await sql`SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY table_name`;
    expect(tablesAfterFirst.map((r: { table_name: string }) => r.table_name)).toEqual([...tables.map(getTableName), "schema_migrations"].sort());

    expect(await applyPgMigrations(sql)).toEqual([]);
    expect((await sql`SELECT tag FROM schema_migrations ORDER BY tag`).map((r: { tag: string }) => r.tag)).toEqual(ALL_TAGS);
    // the migration lock is not left behind
    expect(await sql`SELECT 1 FROM pg_locks WHERE locktype = 'advisory'`).toHaveLength(0);
  });

  test("one row of every table is written and read back through drizzle with the same JS values", async () => {
    const client = connect(await cluster.createDatabase());
    await applyPgMigrations(client);
    const db = drizzle({ client, schema: pgSchema });
    const written = new Map<PgTable, Record<string, unknown>>();
    for (const table of insertionOrder()) {
      const row = sampleRow(table, written);
      // the organization's roll-up version row is made with it (a trigger): written over here
      const insert = table === pgSchema.rollupVersions ? db.insert(table).values(row as never).onConflictDoUpdate({ target: pgSchema.rollupVersions.orgId, set: row as never }) : db.insert(table).values(row as never);
      const [stored] = (await insert.returning()) as Record<string, unknown>[];
      expect(stored).toMatchObject(row);
      written.set(table, stored!);
    }
    expect(written.size).toBe(tables.length);

    // a Date round-trips through `epoch` as epoch seconds, a boolean through `boolean`
    const [session] = await db.select().from(pgSchema.sessions);
    expect(session!.expiresAt).toEqual(AT);
    expect(session!.createdAt).toBeInstanceOf(Date);
    // the SQL default (the database clock) reads as a Date of this century
    expect(session!.lastSeenAt.getUTCFullYear()).toBeGreaterThanOrEqual(2024);
    const [raw] = await client`SELECT expires_at FROM sessions`;
    expect(Number(raw.expires_at)).toBe(AT.getTime() / 1000);

    const [settings] = await db.select().from(pgSchema.organizationSettings);
    expect(settings!.emailNotifications).toBe(false);
    const [contact] = await db.select().from(pgSchema.contactSubmissions);
    expect(contact!.isRead).toBe(true);

    // counts over 32 bits survive, and database-generated record keys are plain numbers
    const [record] = await db.select().from(pgSchema.aggregateRecords);
    expect(record!.messageCount).toBe(LARGE);
    expect(typeof record!.id).toBe("number");
  });

  test("two nodes starting together apply each migration once: one applies, the other waits and finds nothing to do", async () => {
    const url = await cluster.createDatabase();
    const holder = await connect(url).reserve();
    try {
      // hold the migration lock so both nodes are provably waiting on it before either runs
      await holder`SELECT pg_advisory_lock(${MIGRATION_LOCK_KEY.toString()}::bigint)`;
      const nodeA = applyPgMigrations(connect(url));
      const nodeB = applyPgMigrations(connect(url));
      let waiting = 0;
      for (let i = 0; i < 200 && waiting < 2; i++) {
        await Bun.sleep(50);
        const [row] = await holder`SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND NOT granted`;
        waiting = row.n;
      }
      expect(waiting).toBe(2);
      await holder`SELECT pg_advisory_unlock(${MIGRATION_LOCK_KEY.toString()}::bigint)`;

      const results = await Promise.all([nodeA, nodeB]);
      expect(results.map((tags) => tags.length).sort()).toEqual([0, ALL_TAGS.length]);
      expect(results.flat()).toEqual(ALL_TAGS);
      expect((await holder`SELECT tag FROM schema_migrations`).length).toBe(ALL_TAGS.length);
    } finally {
      await holder.release();
    }
  });

  test("a failing migration rolls back whole, releases the lock, and a later run applies it", async () => {
    const sql = connect(await cluster.createDatabase());
    const broken = [{ tag: "9000_broken", sql: "CREATE TABLE notes (id text PRIMARY KEY);\n--> statement-breakpoint\nSELECT no_such_function();" }];
    await expect(applyPgMigrations(sql, broken)).rejects.toThrow(/no_such_function/);
    expect(await sql`SELECT 1 FROM information_schema.tables WHERE table_name = 'notes'`).toHaveLength(0);
    expect(await sql`SELECT 1 FROM pg_locks WHERE locktype = 'advisory'`).toHaveLength(0);
    expect(await applyPgMigrations(sql, [{ tag: "9000_fixed", sql: "CREATE TABLE notes (id text PRIMARY KEY);" }])).toEqual(["9000_fixed"]);
  });
});
