/**
 * `dmarcwarden migrate-store` through the built executable: the seeded demo database (SQLite)
 * is copied into an empty PostgreSQL database; every table's row count and a sample of rows are
 * equal afterwards, a second copy into the now-full database is refused, and a server on the
 * PostgreSQL copy serves the same dashboard, domains and reports as one on the SQLite file.
 */
import { Database } from "bun:sqlite";
import { afterAll, beforeAll, expect, test } from "bun:test";
import { copyFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SQL } from "bun";
import { asc, getTableColumns, is, type Column } from "drizzle-orm";
import { drizzle as drizzlePg } from "drizzle-orm/bun-sql";
import { drizzle as drizzleSqlite } from "drizzle-orm/bun-sqlite";
import { PgTable } from "drizzle-orm/pg-core";
import { SQLiteTable, getTableConfig } from "drizzle-orm/sqlite-core";
import * as pgSchema from "../../src/db/schema-pg";
import * as sqliteSchema from "../../src/db/schema";
import { postgresMissing, startPostgres, type PostgresCluster } from "../support/postgres";
import { ensureExecutable, EXECUTABLE, startServer, type RunningServer } from "../support/server";

if (postgresMissing) console.log(`migrate-store test skipped: ${postgresMissing}`);

let pg: PostgresCluster;
let dir = "";
let demoDb = "";
let targetUrl = "";
let demoLogin = { email: "", password: "" };

async function run(args: string[]) {
  const proc = Bun.spawn([EXECUTABLE, ...args], { cwd: dir, env: { PATH: process.env.PATH ?? "", HOME: dir }, stdout: "pipe", stderr: "pipe" });
  const [out, err] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text()]);
  return { code: await proc.exited, out, err };
}

beforeAll(async () => {
  if (postgresMissing) return;
  await ensureExecutable();
  pg = await startPostgres();
  dir = mkdtempSync(join(tmpdir(), "dw-migrate-store-"));
  demoDb = join(dir, "demo.db");
  const seeded = await run(["seed-demo", "--db", demoDb]);
  expect(seeded.code).toBe(0);
  const login = /Sign in as (\S+) with password (\S+)/.exec(seeded.out);
  expect(login).not.toBeNull();
  demoLogin = { email: login![1]!, password: login![2]! };
  targetUrl = await pg.createDatabase();
}, 120_000);

afterAll(async () => {
  await pg?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

test.skipIf(!!postgresMissing)("copies every table with ids kept, verifies the counts, refuses a second copy", async () => {
  const copied = await run(["migrate-store", "--from", demoDb, "--to", targetUrl]);
  expect(copied.err).toBe("");
  expect(copied.code).toBe(0);
  expect(copied.out).toContain("counts verified");
  expect(copied.out).not.toContain("MISMATCH");
  // the password of the URL never shows (the test cluster has none; the form is checked here)
  expect(copied.out).not.toMatch(/\/\/[^:/@]+:[^*@][^@]*@/);

  const sqlite = new Database(demoDb, { readonly: true });
  const client = new SQL(targetUrl);
  try {
    const lite = drizzleSqlite(sqlite, { schema: sqliteSchema });
    const post = drizzlePg({ client, schema: pgSchema });
    let tablesWithRows = 0;
    for (const [name, liteTable] of Object.entries(sqliteSchema)) {
      if (!is(liteTable, SQLiteTable)) continue;
      const pgTable = (pgSchema as Record<string, unknown>)[name] as PgTable;
      const config = getTableConfig(liteTable);
      const order = (config.primaryKeys[0]?.columns ?? Object.values(getTableColumns(liteTable)).filter((c) => c.primary)).map((c) => c.name);
      const column = (columns: Record<string, Column>, sqlName: string) => Object.values(columns).find((c) => c.name === sqlName)!;
      const liteRows = (await lite
        .select()
        .from(liteTable)
        .orderBy(...order.map((n) => asc(column(getTableColumns(liteTable), n))))) as Record<string, unknown>[];
      const pgRows = (await post
        .select()
        .from(pgTable)
        .orderBy(...order.map((n) => asc(column(getTableColumns(pgTable), n))))) as Record<string, unknown>[];
      expect({ table: config.name, rows: pgRows.length }).toEqual({ table: config.name, rows: liteRows.length });
      if (liteRows.length) tablesWithRows++;
      // a sample of rows, value for value (Dates, booleans, numbers, ids)
      const step = Math.max(1, Math.floor(liteRows.length / 25));
      // a roll-up version is a counter of changes, made by the target's own triggers as rows go in: its organization is what is kept
      const kept = (row: Record<string, unknown> | undefined) => (config.name === "rollup_versions" ? { orgId: row?.orgId } : row);
      for (let i = 0; i < liteRows.length; i += step) expect(kept(pgRows[i])).toEqual(kept(liteRows[i]!));
    }
    // the demo has organisations, users, domains, reports, records, auth results, history …
    expect(tablesWithRows).toBeGreaterThanOrEqual(8);
  } finally {
    sqlite.close();
    await client.close();
  }

  const again = await run(["migrate-store", "--from", demoDb, "--to", targetUrl]);
  expect(again.code).toBe(2);
  expect(again.err).toContain("already holds data");
}, 120_000);

test.skipIf(!!postgresMissing)("a server on the PostgreSQL copy serves the same dashboard, domains and reports", async () => {
  const liteDir = mkdtempSync(join(tmpdir(), "dw-migrate-store-lite-"));
  copyFileSync(demoDb, join(liteDir, "dw.db"));
  const servers: RunningServer[] = [];
  try {
    servers.push(await startServer({ dir: liteDir }));
    // every node on PostgreSQL shares one key for stored secrets
    const secretKey = Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("base64");
    servers.push(await startServer({ args: ["--database-url", targetUrl, "--secret-key", secretKey] }));
    const answers = await Promise.all(
      servers.map(async (server) => {
        const login = await fetch(`${server.url}/api/auth/login`, {
          method: "POST",
          headers: { "content-type": "application/json", origin: server.url },
          body: JSON.stringify({ email: demoLogin.email, password: demoLogin.password }),
        });
        if (login.status !== 200) console.log(server.output().slice(-3000)); // the server log says why
        expect(login.status).toBe(200);
        const cookie = login.headers.getSetCookie().map((c) => c.split(";")[0]).join("; ");
        const get = async (path: string) => {
          const res = await fetch(server.url + path, { headers: { cookie } });
          expect(res.status).toBe(200);
          return res.json();
        };
        return {
          stats: await get("/api/dashboard/stats"),
          domains: await get("/api/domains"),
          reports: await get("/api/dmarc-reports?limit=20"),
          tasks: await get("/api/tasks"),
        };
      }),
    );
    expect((answers[0]!.domains as unknown[]).length).toBeGreaterThan(0);
    expect((answers[0]!.reports as unknown[]).length).toBeGreaterThan(0);
    expect(answers[1]).toEqual(answers[0]!);
  } finally {
    for (const s of servers) await s.stop();
    rmSync(liteDir, { recursive: true, force: true });
  }
}, 120_000);
