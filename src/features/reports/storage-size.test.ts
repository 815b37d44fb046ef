/**
 * Bytes on disk per stored aggregate record: the records table (each row with its DKIM and SPF
 * results) with its indexes, measured with SQLite's dbstat after ingesting reports of the usual
 * shape (one DKIM and one SPF result per record, header and envelope from). A size, not a time:
 * the test fails when a schema change makes records bigger than the bound.
 *
 * The bound is the goal of 150 bytes (138 today). Of them, the organization's 36-character id
 * (the tenant key PostgreSQL shards on, kept in both stores by the schema twin rule) is the largest
 * part; the report is named by its integer `seq`, and the header From and envelope From are ""
 * when they repeat the policy domain and the header From (record-auth.ts).
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync, strToU8 } from "fflate";
import { testConfig } from "../../config";
import { openStore, type SqliteStore } from "../../db";
import { createLogger } from "../../log";
import { RateLimiter } from "../../http/rate-limit";
import { aggregateXml } from "../../lib/reports/generate";
import { ensureDomains } from "../domains/service";
import { ensureOrganization } from "../orgs/service";
import { ingestFile } from "./ingest";

/** bytes per record, the records table and its indexes */
const MAX_BYTES_PER_RECORD = 150;
/** bytes per record of the daily roll-ups and their indexes, when nearly every record has a source address of its own */
const MAX_ROLLUP_BYTES_PER_RECORD = 700;
const REPORTS = 20;
const RECORDS = 500;

let dir = "";
let store: SqliteStore;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "dw-size-"));
  store = openStore(join(dir, "dw.db"));
});
afterAll(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

test(`a stored aggregate record takes at most ${MAX_BYTES_PER_RECORD} bytes with its DKIM and SPF results and its indexes`, async () => {
  const deps = { config: testConfig({ db: join(dir, "dw.db") }), store, log: createLogger("warn"), limiter: new RateLimiter(store), now: () => new Date("2026-03-20T00:00:00Z") };
  const orgId = await ensureOrganization(deps, "size", "Size Ltd");
  await ensureDomains(deps, orgId, ["example.com"]);
  for (let i = 0; i < REPORTS; i++) {
    const records = Array.from({ length: RECORDS }, (_, j) => ({
      sourceIp: `${10 + (j % 200)}.${i % 250}.${j % 250}.${(i + j) % 250}`,
      count: 1 + ((i * j) % 17),
      dkim: j % 5 === 0 ? "fail" : "pass",
      spf: j % 7 === 0 ? "fail" : "pass",
      envelopeFrom: "example.com",
      dkimAuth: [{ domain: "example.com", selector: "s1", result: j % 5 === 0 ? "fail" : "pass" }],
      spfAuth: [{ domain: "example.com", scope: "mfrom", result: j % 7 === 0 ? "fail" : "pass" }],
    }));
    const xml = aggregateXml({ orgName: "google.com", reportId: `size-${i}`, begin: new Date(Date.UTC(2026, 2, 1 + i)), end: new Date(Date.UTC(2026, 2, 2 + i) - 1000), domain: "example.com", records });
    expect((await ingestFile(deps, { orgId, fileName: `size-${i}.xml.gz`, bytes: gzipSync(strToU8(xml)), source: "cli" })).status).toBe("ingested");
  }
  const parts = store.sqlite
    .query("SELECT name, sum(pgsize) AS bytes FROM dbstat WHERE name IN (SELECT name FROM sqlite_schema WHERE tbl_name = 'aggregate_records') GROUP BY name ORDER BY bytes DESC")
    .all() as { name: string; bytes: number }[];
  const perRecord = parts.reduce((n, p) => n + p.bytes, 0) / (REPORTS * RECORDS);
  console.log(`bytes per stored record: ${perRecord.toFixed(0)} (${parts.map((p) => `${p.name} ${(p.bytes / (REPORTS * RECORDS)).toFixed(0)}`).join(", ")})`);
  expect(parts.map((p) => p.name)).toContain("aggregate_records");
  expect(perRecord).toBeLessThanOrEqual(MAX_BYTES_PER_RECORD);

  // the daily roll-ups the same records were counted into (here nearly one source address per record: their worst case)
  const rollups = store.sqlite
    .query("SELECT name, sum(pgsize) AS bytes FROM dbstat WHERE name IN (SELECT name FROM sqlite_schema WHERE tbl_name LIKE 'daily\\_%' ESCAPE '\\') GROUP BY name ORDER BY bytes DESC")
    .all() as { name: string; bytes: number }[];
  const rollupPerRecord = rollups.reduce((n, p) => n + p.bytes, 0) / (REPORTS * RECORDS);
  console.log(`roll-up bytes per stored record: ${rollupPerRecord.toFixed(0)} (${rollups.map((p) => `${p.name} ${(p.bytes / (REPORTS * RECORDS)).toFixed(0)}`).join(", ")})`);
  expect(rollups.map((p) => p.name)).toContain("daily_sender_stats");
  expect(rollupPerRecord).toBeLessThanOrEqual(MAX_ROLLUP_BYTES_PER_RECORD);
});
