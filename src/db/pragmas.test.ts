import { afterEach, expect, test } from "bun:test";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Database } from "bun:sqlite";
import { ANALYSIS_LIMIT, checkpointWal, openStore, SQLITE_CACHE_KB, SQLITE_PAGE_SIZE, WAL_AUTOCHECKPOINT_BYTES, type SqliteStore } from ".";

let dir = "";
let store: SqliteStore | null = null;
afterEach(async () => {
  await store?.close();
  rmSync(dir, { recursive: true, force: true });
});

const pragma = (name: string) => Object.values(store!.sqlite.query(`PRAGMA ${name}`).get() as Record<string, unknown>)[0];

test("SQLite runs with WAL, the sized page cache, in-memory temporaries and checkpoints kept off commits", async () => {
  dir = mkdtempSync(join(tmpdir(), "dw-pragmas-"));
  const path = join(dir, "dw.db");
  store = openStore(path);
  expect(pragma("journal_mode")).toBe("wal");
  expect(pragma("cache_size")).toBe(-SQLITE_CACHE_KB);
  expect(pragma("temp_store")).toBe(2);
  expect(pragma("page_size")).toBe(SQLITE_PAGE_SIZE);
  expect(pragma("wal_autocheckpoint")).toBe(WAL_AUTOCHECKPOINT_BYTES / SQLITE_PAGE_SIZE);
  expect(pragma("foreign_keys")).toBe(1);
  // ANALYZE (the open-time and hourly PRAGMA optimize) samples, never reads a table of millions whole
  expect(pragma("analysis_limit")).toBe(ANALYSIS_LIMIT);

  // ~8 MB of commits: past SQLite's default autocheckpoint (1,000 pages), which would have run inside a commit
  const sqlite = store.sqlite;
  sqlite.run("CREATE TABLE filler (body TEXT)");
  const insert = sqlite.prepare("INSERT INTO filler (body) VALUES (?)");
  for (let file = 0; file < 8; file++) {
    sqlite.run("BEGIN IMMEDIATE");
    for (let i = 0; i < 256; i++) insert.run("x".repeat(4000));
    sqlite.run("COMMIT");
  }
  const wal = () => statSync(`${path}-wal`).size;
  expect(wal()).toBeGreaterThan(8 * 1024 * 1024);

  // no checkpoint while a write transaction is open; between transactions it copies the whole WAL back
  sqlite.run("BEGIN IMMEDIATE");
  expect(checkpointWal(sqlite)).toBe(false);
  sqlite.run("COMMIT");
  expect(checkpointWal(sqlite)).toBe(true);
  const after = sqlite.query("PRAGMA wal_checkpoint(PASSIVE)").get() as { busy: number; log: number; checkpointed: number };
  expect(after.busy).toBe(0);
  expect(after.checkpointed).toBe(after.log);
  expect(sqlite.query("SELECT count(*) AS n FROM filler").get()).toEqual({ n: 8 * 256 });
});

test("a database made with 4 KB pages keeps them, its WAL checkpoint backstop the same size in bytes", async () => {
  dir = mkdtempSync(join(tmpdir(), "dw-pragmas-"));
  const path = join(dir, "old.db");
  const old = new Database(path, { create: true });
  old.run("PRAGMA page_size = 4096");
  old.run("PRAGMA journal_mode = WAL");
  old.run("CREATE TABLE kept (v TEXT)");
  old.run("INSERT INTO kept (v) VALUES ('still here')");
  old.close();
  store = openStore(path);
  expect(pragma("page_size")).toBe(4096);
  expect(pragma("wal_autocheckpoint")).toBe(WAL_AUTOCHECKPOINT_BYTES / 4096);
  expect(store.sqlite.query("SELECT v FROM kept").get()).toEqual({ v: "still here" });
});
