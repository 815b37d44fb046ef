/**
 * PostgreSQL: after an import into a new database, the planner's statistics know the reports
 * are there (so the foreign-key checks of the next records look their report up by key instead
 * of reading the whole table). SQLite needs none: nothing runs there.
 */
import { afterEach, expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import { gzipSync, strToU8 } from "fflate";
import { ensureDomains } from "../domains/service";
import { ingestFile } from "./ingest";
import { noteReportsWritten, STATS_CHECK_EVERY } from "./planner-stats";
import { reverseDnsSettled } from "./reverse-dns";
import { aggregateXml } from "../../lib/reports/generate";
import { makeTestApp, type TestApp } from "../../../tests/support/app";
import { signedInMember } from "../../../tests/support/fixtures";

let t: TestApp;
afterEach(async () => {
  await reverseDnsSettled();
  await t?.close();
});

const RECORDS = 100;
const report = (i: number) =>
  gzipSync(
    strToU8(
      aggregateXml({
        orgName: "stats.example",
        reportId: `stats-${i}`,
        begin: new Date(Date.UTC(2026, 0, 1 + i)),
        end: new Date(Date.UTC(2026, 0, 2 + i) - 1000),
        domain: "stats.example",
        records: Array.from({ length: RECORDS }, (_, j) => ({ sourceIp: `10.0.${i}.${j}`, count: 1, dkim: "pass", spf: "pass", dkimAuth: [{ domain: "stats.example", selector: "s1", result: "pass" }], spfAuth: [{ domain: "stats.example", result: "pass" }] })),
      }),
    ),
  );

test("an import leaves the reports table's statistics knowing its rows (PostgreSQL); nothing to do on SQLite", async () => {
  t = await makeTestApp();
  const { store } = t.deps;
  if (store.dialect === "sqlite") {
    expect(await noteReportsWritten(store, STATS_CHECK_EVERY * 10)).toBe(false);
    return;
  }
  const owner = await signedInMember(store, "owner");
  await ensureDomains(t.deps, owner.orgId, ["stats.example"]);
  const files = STATS_CHECK_EVERY + 1;
  for (let i = 0; i < files; i++) {
    const result = await ingestFile(t.deps, { orgId: owner.orgId, fileName: `stats-${i}.xml.gz`, bytes: report(i), source: "cli" });
    expect(result.status).toBe("ingested");
  }
  const known = async (table: string) => Number((await store.rows<{ known: number | string }>(sql`SELECT reltuples AS known FROM pg_class WHERE oid = ${table}::regclass`))[0]?.known);
  expect(await known("aggregate_reports")).toBeGreaterThanOrEqual(STATS_CHECK_EVERY);
});
