/**
 * The store's write contract, on a SQLite file and on PostgreSQL (when installed): write
 * transactions with awaits inside them never lose an update, a failing body leaves nothing
 * behind, nested writes share the outer transaction, unique violations are recognised, raw rows
 * work, and job leases go to one holder at a time. On SQLite, another process holding the write
 * lock makes a write wait, not fail.
 *
 * In the suite's PostgreSQL run (DW_TEST_DATABASE_URL) the contract runs on that cluster and the
 * SQLite-file tests skip; otherwise the contract runs on SQLite and on a cluster of its own.
 */
import { Database } from "bun:sqlite";
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { SQL } from "bun";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { eq, sql } from "drizzle-orm";
import { testPostgresStore } from "../../tests/support/app";
import { postgresMissing, startPostgres, type PostgresCluster } from "../../tests/support/postgres";
import { keepingStatements, openStore, STATEMENTS_KEPT, type SqliteStore, type Store } from "./index";
import { claimLease, releaseLease, sweepLeases } from "./leases";
import { applyPgMigrations } from "./migrate-pg";
import { openPostgresStore, RANDOM_PAGE_COST } from "./postgres";
import { Elysia } from "elysia";
import { holdRollupVersion, raiseRollupVersion } from "../features/reports/read-cache";
import { errorPlugin } from "../http/error-plugin";
import { memoryLogger } from "../log";
import { DatabaseBusyError, dbWriteRetries, isUniqueViolation, PG_WRITE_ATTEMPTS } from "./store";

const SUITE_POSTGRES = process.env.DW_TEST_DATABASE_URL || null;
const sqliteSkipped = SUITE_POSTGRES ? "SQLite-only: it opens a SQLite file of its own" : null;
if (sqliteSkipped) console.log(`store.test.ts: the SQLite store tests skip on PostgreSQL (${sqliteSkipped})`);
if (postgresMissing) console.log(`store.test.ts: the store contract on PostgreSQL is skipped: ${postgresMissing}`);

let dir = "";
let opened: Store[] = [];
afterEach(async () => {
  for (const s of opened) await s.close();
  opened = [];
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = "";
});

function fileStore(): SqliteStore {
  dir = mkdtempSync(join(tmpdir(), "dw-store-"));
  const store = openStore(join(dir, "dw.db"));
  opened.push(store);
  return store;
}

/** The cluster of the suite's PostgreSQL run, or one started here with a migrated template. */
let cluster: PostgresCluster | null = null;
let clusterBase = SUITE_POSTGRES;
let template = process.env.DW_TEST_PG_TEMPLATE;
beforeAll(async () => {
  if (SUITE_POSTGRES || postgresMissing) return;
  cluster = await startPostgres();
  template = "dw_store_template";
  const client = new SQL(await cluster.createDatabase(template));
  await applyPgMigrations(client);
  await client.close();
  clusterBase = cluster.url();
});
afterAll(async () => {
  await cluster?.stop();
});

async function postgresStore(): Promise<Store> {
  const { store } = await testPostgresStore(clusterBase!, template);
  opened.push(store);
  return store;
}

async function addOrg(s: Store, name: string) {
  const [org] = await s.write((tx) => tx.insert(s.t.organizations).values({ name, slug: name.toLowerCase() }).returning());
  return org!;
}

const STORES: { name: string; skip: string | null; open: () => Store | Promise<Store> }[] = [
  { name: "SQLite", skip: sqliteSkipped, open: fileStore },
  { name: "PostgreSQL", skip: postgresMissing, open: postgresStore },
];

for (const kind of STORES) {
  describe.skipIf(!!kind.skip)(`the store contract on ${kind.name}`, () => {
    test("concurrent write transactions that await between read and write do not lose updates", async () => {
      const s = await kind.open();
      const org = await addOrg(s, "Counter");
      // read the name, yield, write it back one longer: 20 at once must end 20 longer
      await Promise.all(
        Array.from({ length: 20 }, () =>
          s.write(async (tx) => {
            const [row] = await tx.select().from(s.t.organizations).where(eq(s.t.organizations.id, org.id));
            await Bun.sleep(1);
            await tx.update(s.t.organizations).set({ name: `${row!.name}+` }).where(eq(s.t.organizations.id, org.id));
          }),
        ),
      );
      const [row] = await s.db.select().from(s.t.organizations).where(eq(s.t.organizations.id, org.id));
      expect(row!.name).toBe(`Counter${"+".repeat(20)}`);
    });

    test("a write whose body throws after an await leaves no row behind", async () => {
      const s = await kind.open();
      await expect(
        s.write(async (tx) => {
          await tx.insert(s.t.organizations).values({ name: "Half", slug: "half" });
          await Bun.sleep(1);
          throw new Error("refused halfway");
        }),
      ).rejects.toThrow("refused halfway");
      expect(await s.db.select().from(s.t.organizations)).toHaveLength(0);
      // and the store is usable afterwards
      await addOrg(s, "Whole");
      expect(await s.db.select().from(s.t.organizations)).toHaveLength(1);
    });

    test("a nested write joins the outer transaction and rolls back with it", async () => {
      const s = await kind.open();
      await expect(
        s.write(async () => {
          await addOrg(s, "Inner");
          expect(await s.db.select().from(s.t.organizations)).toHaveLength(1);
          throw new Error("outer fails");
        }),
      ).rejects.toThrow("outer fails");
      expect(await s.db.select().from(s.t.organizations)).toHaveLength(0);
    });

    test("unique violations are recognized", async () => {
      const s = await kind.open();
      await addOrg(s, "Twice");
      const error = await addOrg(s, "Twice").catch((e) => e);
      expect(isUniqueViolation(error)).toBe(true);
      expect(isUniqueViolation(new Error("something else"))).toBe(false);
    });

    test("rows runs raw SQL, with parameters, and sees the open transaction inside a write", async () => {
      const s = await kind.open();
      await s.write(async () => {
        await addOrg(s, "Raw");
        const rows = await s.rows<{ n: number }>(sql`SELECT count(*) AS n FROM organizations WHERE slug = ${"raw"}`);
        expect(Number(rows[0]!.n)).toBe(1);
      });
      // outside the write, from another connection on PostgreSQL: committed
      expect(Number((await s.rows<{ n: number }>(sql`SELECT count(*) AS n FROM organizations`))[0]!.n)).toBe(1);
    });

    test("tuples answers a raw query as arrays in the order selected, and sees the open transaction inside a write", async () => {
      const s = await kind.open();
      await addOrg(s, "Tuple-A");
      await s.write(async () => {
        await addOrg(s, "Tuple-B");
        const rows = await s.tuples<[string, number | string, string | null]>(
          sql`SELECT slug AS "slug", count(*) OVER () AS "n", NULL AS "nothing" FROM organizations WHERE slug LIKE ${"tuple-%"} ORDER BY slug`,
        );
        expect(rows.map(([slug, n, nothing]) => [slug, Number(n), nothing])).toEqual([
          ["tuple-a", 2, null],
          ["tuple-b", 2, null],
        ]);
      });
      expect(await s.tuples(sql`SELECT slug FROM organizations WHERE slug = ${"nobody"}`)).toEqual([]);
    });

    test("eachRow hands every row of a raw query, as an object of its columns, in order; inside a write it sees the open transaction", async () => {
      const s = await kind.open();
      await addOrg(s, "Each-A");
      const seen: [string, number, null][] = [];
      await s.write(async () => {
        await addOrg(s, "Each-B");
        await s.eachRow<{ slug: string; n: number | string; nothing: null }>(
          sql`SELECT slug AS "slug", count(*) OVER () AS "n", NULL AS "nothing" FROM organizations WHERE slug LIKE ${"each-%"} ORDER BY slug`,
          (row) => seen.push([row.slug, Number(row.n), row.nothing]),
        );
      });
      expect(seen).toEqual([
        ["each-a", 2, null],
        ["each-b", 2, null],
      ]);
      let calls = 0;
      await s.eachRow(sql`SELECT slug FROM organizations WHERE slug = ${"nobody"}`, () => calls++);
      expect(calls).toBe(0);
    });

    test("a job lease is granted to one holder at a time and again once it lapses", async () => {
      const s = await kind.open();
      const t0 = new Date("2026-01-01T00:00:00Z");
      const claims = await Promise.all(["node-a", "node-b", "node-c"].map((holder) => claimLease(s, "dns-check:d1", 600, t0, holder)));
      expect(claims.filter(Boolean)).toHaveLength(1);
      // still held a minute later, by anyone
      expect(await claimLease(s, "dns-check:d1", 600, new Date(t0.getTime() + 60_000), "node-b")).toBe(false);
      // another key is independent
      expect(await claimLease(s, "dns-check:d2", 600, t0, "node-b")).toBe(true);
      // lapsed after its period: the next asker gets it
      expect(await claimLease(s, "dns-check:d1", 600, new Date(t0.getTime() + 600_000), "node-b")).toBe(true);
      // released early by its holder: free again
      await releaseLease(s, "dns-check:d2", "node-b");
      expect(await claimLease(s, "dns-check:d2", 600, t0, "node-c")).toBe(true);
      expect(await sweepLeases(s, new Date(t0.getTime() + 30 * 86_400_000))).toBe(2);
    });
  });
}

test.skipIf(!!sqliteSkipped)("SQLite: drizzle's statements are compiled once per SQL text, at most STATEMENTS_KEPT kept, and answer what the data holds now", async () => {
  const s = fileStore();
  const connection = keepingStatements(s.sqlite);
  const first = connection.prepare("SELECT 1 AS one");
  expect(connection.prepare("SELECT 1 AS one")).toBe(first);
  // the least recently used go first
  for (let i = 0; i < STATEMENTS_KEPT; i++) connection.prepare(`SELECT ${i + 2} AS n`);
  const again = connection.prepare("SELECT 1 AS one");
  expect(again).not.toBe(first);
  expect(again.get()).toEqual({ one: 1 });
  // the rest is the connection's own
  expect(connection.inTransaction).toBe(false);
  expect(connection.query("SELECT 2 AS two").get()).toEqual({ two: 2 });

  // through the store: a kept statement reads rows written since, and again after a rolled-back write
  const names = async () => (await s.db.select({ name: s.t.organizations.name }).from(s.t.organizations).orderBy(s.t.organizations.name)).map((o) => o.name);
  expect(await names()).toEqual([]);
  await addOrg(s, "Alpha");
  expect(await names()).toEqual(["Alpha"]);
  await expect(
    s.write(async () => {
      await addOrg(s, "Beta");
      expect(await names()).toEqual(["Alpha", "Beta"]);
      throw new Error("undone");
    }),
  ).rejects.toThrow("undone");
  expect(await names()).toEqual(["Alpha"]);
  // after ANALYZE (statistics change: SQLite compiles its kept statements again) the same answers
  s.sqlite.run("ANALYZE");
  await addOrg(s, "Gamma");
  expect(await names()).toEqual(["Alpha", "Gamma"]);
});

test.skipIf(!!sqliteSkipped)("SQLite: a write waits while another connection holds the write lock, then succeeds", async () => {
  const s = fileStore();
  const other = new Database(join(dir, "dw.db"));
  other.run("PRAGMA busy_timeout = 0");
  other.run("BEGIN IMMEDIATE");
  s.sqlite.run("PRAGMA busy_timeout = 10");
  const pending = addOrg(s, "Patient");
  await Bun.sleep(30);
  other.run("COMMIT");
  other.close();
  expect((await pending).name).toBe("Patient");
});

test.skipIf(!!postgresMissing)("PostgreSQL: the pool plans for SSD storage (random_page_cost 1.1) unless the database, the role or the server's configuration sets its own, or sets plan_cache_mode (behind PgBouncer)", async () => {
  const s = await postgresStore();
  const costs = async (store: Store) => (await Promise.all(Array.from({ length: 4 }, () => store.rows<{ random_page_cost: string }>(sql`SHOW random_page_cost`)))).map((rows) => rows[0]?.random_page_cost);
  expect(await costs(s)).toEqual(Array(4).fill(RANDOM_PAGE_COST));
  const database = (await s.rows<{ name: string }>(sql`SELECT current_database() AS name`))[0]!.name;
  const url = new URL(clusterBase!);
  url.pathname = `/${database}`;
  const reopened = async (check: (store: Store) => Promise<void>) => {
    const again = await openPostgresStore(url.toString(), { pool: 4, migrate: false });
    try {
      await check(again);
    } finally {
      await again.close();
    }
  };
  // the database's planning set as docs/operations/postgresql.md says for PgBouncer: no random_page_cost sent (PostgreSQL's own 4)
  await s.rows(sql.raw(`ALTER DATABASE ${database} SET plan_cache_mode = force_custom_plan`));
  await reopened(async (again) => expect(await costs(again)).toEqual(Array(4).fill("4")));
  // an operator's choice for the database is kept
  await s.rows(sql.raw(`ALTER DATABASE ${database} RESET plan_cache_mode`));
  await s.rows(sql.raw(`ALTER DATABASE ${database} SET random_page_cost = 2.5`));
  await reopened(async (again) => expect(await costs(again)).toEqual(Array(4).fill("2.5")));
});

test.skipIf(!!postgresMissing)("PostgreSQL: reads are planned for each run's own parameters; a write transaction keeps PostgreSQL's choice (its foreign-key checks' kept plans)", async () => {
  const s = await postgresStore();
  // the pool hands out several connections: ask each of them
  const modes = await Promise.all(Array.from({ length: 4 }, () => s.rows<{ plan_cache_mode: string }>(sql`SHOW plan_cache_mode`)));
  expect(modes.map((rows) => rows[0]?.plan_cache_mode)).toEqual(Array(4).fill("force_custom_plan"));
  expect(await s.write(async () => (await s.rows<{ plan_cache_mode: string }>(sql`SHOW plan_cache_mode`))[0]?.plan_cache_mode)).toBe("auto");
  // and only for the transaction: the connection plans reads for their parameters again after it
  const after = await Promise.all(Array.from({ length: 4 }, () => s.rows<{ plan_cache_mode: string }>(sql`SHOW plan_cache_mode`)));
  expect(after.map((rows) => rows[0]?.plan_cache_mode)).toEqual(Array(4).fill("force_custom_plan"));
});

/** A PostgreSQL test database opened again with a logger that keeps its lines (closed before the database is dropped). */
async function loggedPostgresStore() {
  const { store: owner, url } = await testPostgresStore(clusterBase!, template);
  opened.push(owner);
  const log = memoryLogger();
  const store = await openPostgresStore(url, { pool: 4, migrate: false, log });
  opened.unshift(store);
  return { store, url, log };
}

const logged = (log: { lines: string[] }, event: string) => log.lines.map((l) => JSON.parse(l)).filter((l) => l.event === event);

test.skipIf(!!postgresMissing)("PostgreSQL: a write that waited for the roll-up version another transaction changed fails to serialize, is run again and succeeds; the retry is logged and counted", async () => {
  const { store: s, url, log } = await loggedPostgresStore();
  const org = await addOrg(s, "Busy");
  const version = async () => Number((await s.rows<{ version: unknown }>(sql`SELECT version FROM rollup_versions WHERE org_id = ${org.id}`))[0]!.version);
  const before = await version();
  const retriesBefore = dbWriteRetries.get({ sqlstate: "40001" });
  const other = new SQL({ url, max: 1 });
  let runs = 0;
  let write: Promise<string> | null = null;
  try {
    await other.begin(async (tx) => {
      await tx`UPDATE rollup_versions SET version = version + 1 WHERE org_id = ${org.id}`;
      write = s.write(async () => {
        runs++;
        await holdRollupVersion(s, org.id);
        await raiseRollupVersion(s, org.id);
        return "written";
      });
      write.catch(() => {});
      // commit once the write waits for the row this transaction changed
      while (!Number((await s.rows<{ n: unknown }>(sql`SELECT count(*) AS n FROM pg_locks WHERE NOT granted`))[0]!.n)) await Bun.sleep(10);
    });
  } finally {
    await other.close();
  }
  expect(await write!).toBe("written");
  expect(runs).toBe(2);
  expect(await version()).toBe(before + 2);
  expect(dbWriteRetries.get({ sqlstate: "40001" })).toBe(retriesBefore + 1);
  const retries = logged(log, "db.write_retry");
  expect(retries).toHaveLength(1);
  expect(retries[0]).toMatchObject({ level: "warn", sqlstate: "40001", attempt: 1 });
});

test.skipIf(!!postgresMissing)("PostgreSQL: a write that keeps failing to serialize is run PG_WRITE_ATTEMPTS times, then the caller gets DatabaseBusyError (HTTP 503 with Retry-After) and nothing of it is saved", async () => {
  const { store: s, log } = await loggedPostgresStore();
  let runs = 0;
  const error = await s
    .write(async (tx) => {
      runs++;
      await tx.insert(s.t.organizations).values({ name: `Never ${runs}`, slug: `never-${runs}` });
      await s.rows(sql`DO $$ BEGIN RAISE EXCEPTION 'conflict' USING ERRCODE = 'serialization_failure'; END $$`);
    })
    .catch((e) => e);
  expect(error).toBeInstanceOf(DatabaseBusyError);
  expect(runs).toBe(PG_WRITE_ATTEMPTS);
  expect(await s.db.select().from(s.t.organizations)).toHaveLength(0);
  expect(logged(log, "db.write_retry").map((l) => l.attempt)).toEqual(Array.from({ length: PG_WRITE_ATTEMPTS - 1 }, (_, i) => i + 1));
  expect(logged(log, "db.write_gave_up")).toHaveLength(1);
  // a request that meets it is told to come back, not that something broke
  const app = new Elysia().use(errorPlugin(log)).get("/busy", () => {
    throw error;
  });
  const res = await app.handle(new Request("http://localhost/busy"));
  expect(res.status).toBe(503);
  expect(res.headers.get("retry-after")).toBe("5");
  expect(((await res.json()) as { error: { code: string } }).error.code).toBe("database_busy");
});

test.skipIf(!!postgresMissing)("PostgreSQL: writes given the same queue key wait for each other before their transactions begin: eight holding the roll-up version at once are none of them run again", async () => {
  const { store: s } = await loggedPostgresStore();
  const org = await addOrg(s, "Queued");
  const retriesBefore = dbWriteRetries.get({ sqlstate: "40001" }) + dbWriteRetries.get({ sqlstate: "40P01" });
  let runs = 0;
  await Promise.all(
    Array.from({ length: 8 }, () =>
      s.write(
        async () => {
          runs++;
          await holdRollupVersion(s, org.id);
          await Bun.sleep(20);
          await raiseRollupVersion(s, org.id);
        },
        { queue: `reports:${org.id}` },
      ),
    ),
  );
  expect(runs).toBe(8);
  expect(dbWriteRetries.get({ sqlstate: "40001" }) + dbWriteRetries.get({ sqlstate: "40P01" })).toBe(retriesBefore);
});
