/**
 * Removing a row SQLite's foreign keys cascade from (an organization, a domain, a report) makes it
 * find the rows that point at it, once per removed row, by the key's own columns: without an index
 * that begins with them, by reading the whole child table. daily_sender_stats' key to its domain
 * did that (one domain of the 10 M-record bench database took 17-41 s, the writer held throughout)
 * until migration 0032 replaced it with a trigger that deletes by the (org, domain, day) index.
 * This test lists every cascading key whose lookup is still a scan, each with why that is
 * acceptable: a new one fails here until it has an index, a trigger of its own, or a reason.
 * PostgreSQL's keys likewise (it creates no index for a foreign key either).
 */
import { afterEach, expect, test } from "bun:test";
import { SQL } from "bun";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openStore, type SqliteStore } from ".";
import { migratePostgres } from "./postgres";
import { postgresMissing, startPostgres } from "../../tests/support/postgres";

/** child table and key columns → why a scan for each removed parent row is acceptable, on both stores */
const SCANNED_ON_BOTH = new Map([
  ["sessions.current_org_id", "sessions expire within weeks: a few rows per signed-in user"],
  ["api_tokens.created_by", "a user's removal only; a few tokens per organization"],
  ["invitations.invited_by", "a user's removal only; invitations expire"],
  ["sender_marks.marked_by", "a user's removal only; marks are made by hand"],
  ["sso_connections.updated_by", "a user's removal only; one row per organization"],
]);

/** …and on SQLite, whose keys are single-column (PostgreSQL's `(org_id, x)` keys are served by the organization-leading indexes) */
const SCANNED = new Map([
  ...SCANNED_ON_BOTH,
  ["domain_record_history.org_id", "an organization's removal only, after its domains (whose key to this table is indexed) went"],
  ["alert_deliveries.org_id", "an organization's removal only; deliveries are pruned"],
  ["delivery_attempts.org_id", "an organization's removal only; attempts are pruned"],
  ["dns_snapshots.org_id", "an organization's removal only, after its domains (whose key to this table is indexed) went"],
  ["daily_domain_stats.domain_id", "one row per domain and day (90,000 rows for 1,000 domains × 90 days); with statistics SQLite skips along the organization"],
  ["daily_country_stats.domain_id", "a few rows per domain and day"],
  ["dkim_selectors_seen.domain_id", "a few rows per domain"],
  ["event_reads.event_id", "events go only with their organization (nothing prunes them one by one)"],
]);

let dir = "";
let store: SqliteStore | null = null;
afterEach(async () => {
  await store?.close();
  rmSync(dir, { recursive: true, force: true });
});

test("every cascading foreign key finds a removed row's children by an index, but the few listed with their reason", () => {
  dir = mkdtempSync(join(tmpdir(), "dw-fk-"));
  store = openStore(join(dir, "dw.db"));
  const db = store.sqlite;
  const tables = (db.query("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '\\_\\_%' ESCAPE '\\'").all() as { name: string }[]).map((r) => r.name);
  const scanned = new Set<string>();
  let cascading = 0;
  for (const table of tables) {
    const keys = new Map<number, { from: string[]; onDelete: string }>();
    for (const fk of db.query(`PRAGMA foreign_key_list("${table}")`).all() as { id: number; from: string; on_delete: string }[]) {
      const key = keys.get(fk.id) ?? { from: [], onDelete: fk.on_delete };
      key.from.push(fk.from);
      keys.set(fk.id, key);
    }
    for (const { from, onDelete } of keys.values()) {
      if (onDelete === "NO ACTION" || onDelete === "RESTRICT") continue;
      cascading++;
      const where = from.map((c) => `"${c}" = ?`).join(" AND ");
      const plan = (db.query(`EXPLAIN QUERY PLAN SELECT 1 FROM "${table}" WHERE ${where}`).all(...from.map(() => "x")) as { detail: string }[]).map((r) => r.detail).join("; ");
      if (/^SCAN /.test(plan)) scanned.add(`${table}.${from.join(",")}`);
    }
  }
  // the check reads real keys (it would pass vacuously on an empty schema)
  expect(cascading).toBeGreaterThan(30);
  expect([...scanned].sort()).toEqual([...SCANNED.keys()].sort());
  // the sender roll-ups, the largest table after the records, are not among them: their domain's removal deletes them by a trigger
  expect((db.query(`PRAGMA foreign_key_list("daily_sender_stats")`).all() as { table: string }[]).map((r) => r.table)).toEqual(["organizations"]);
  expect(db.query("SELECT name FROM sqlite_master WHERE type = 'trigger' AND name = 'domains_delete_sender_days'").get()).not.toBeNull();
});

if (postgresMissing) console.warn(`skipping the PostgreSQL foreign-key lookups: ${postgresMissing}`);

test.skipIf(postgresMissing !== null)("PostgreSQL: every cascading foreign key finds a removed row's children by an index, but the few listed with their reason", async () => {
  const cluster = await startPostgres();
  const url = await cluster.createDatabase();
  const db = new SQL({ url, max: 1 });
  try {
    await migratePostgres(url);
    const keys: { child: string; cols: string[] }[] = await db`
      SELECT c.conrelid::regclass::text AS child, array(SELECT a.attname::text FROM unnest(c.conkey) k JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k) AS cols
      FROM pg_constraint c WHERE c.contype = 'f' AND c.confdeltype NOT IN ('a', 'r')`;
    // an empty table is always read whole when allowed: with sequential scans priced out, a plan still reads it whole only when no index serves the key
    await db`SET enable_seqscan = off`;
    const scanned: string[] = [];
    for (const { child, cols } of keys) {
      const where = cols.map((c, i) => `"${c}" = $${i + 1}`).join(" AND ");
      const plan = ((await db.unsafe(`EXPLAIN SELECT 1 FROM ${child} WHERE ${where}`, cols.map(() => "x"))) as Record<string, string>[]).map((r) => r["QUERY PLAN"]).join("\n");
      if (/Seq Scan/.test(plan)) scanned.push(`${child}.${cols.join(",")}`);
    }
    expect(keys.length).toBeGreaterThan(30);
    expect(scanned.sort()).toEqual([...SCANNED_ON_BOTH.keys()].sort());
  } finally {
    await db.close();
    await cluster.stop();
  }
}, 120_000);
