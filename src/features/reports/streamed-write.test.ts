import { afterEach, beforeEach, expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import { gzipSync, strToU8 } from "fflate";
import { makeTestApp, type TestApp } from "../../../tests/support/app";
import { signedInMember } from "../../../tests/support/fixtures";
import { aggregateXml, type GeneratedRecord } from "../../lib/reports/generate";
import { DEFAULT_LIMITS, type AggregateRecord } from "../../lib/reports/model";
import { reverseDnsSettled } from "./reverse-dns";
import { RECORD_BATCH, streamAggregate } from "./streamed-write";

let t: TestApp;
beforeEach(async () => {
  t = await makeTestApp();
});
afterEach(async () => {
  await reverseDnsSettled();
  t.close();
});

const RECORDS = 12_000;
/** distinct source addresses: real reports repeat them across rows (and a few fail, so few alert events) */
const ADDRESSES = 500;
const records = (n: number): GeneratedRecord[] =>
  Array.from({ length: n }, (_, j) => ({
    sourceIp: `10.1.${((j % ADDRESSES) >> 8) & 255}.${(j % ADDRESSES) & 255}`,
    count: 1 + (j % 5),
    dkim: j % 4 === 0 ? "fail" : "pass",
    spf: j % 3 === 0 ? "fail" : "pass",
    disposition: j % 4 === 0 && j % 3 === 0 ? "quarantine" : "none",
    dkimAuth: [{ domain: "example.com", selector: "s1", result: j % 4 === 0 ? "fail" : "pass" }],
    spfAuth: [{ domain: "example.com", scope: "mfrom", result: j % 3 === 0 ? "fail" : "pass" }],
  }));
const report = (reportId: string, n = RECORDS) =>
  aggregateXml({ orgName: "google.com", reportId, begin: new Date("2026-03-01T00:00:00Z"), end: new Date("2026-03-01T23:59:59Z"), domain: "example.com", records: records(n) });
const messages = (n = RECORDS) => records(n).reduce((sum, r) => sum + r.count, 0);
const passing = (n = RECORDS) => records(n).reduce((sum, r) => sum + (r.dkim === "pass" || r.spf === "pass" ? r.count : 0), 0);

async function setUp() {
  const member = await signedInMember(t.deps.store, "member");
  const { store } = t.deps;
  await store.write((tx) => tx.insert(store.t.domains).values({ orgId: member.orgId, name: "example.com" }));
  return member;
}

function upload(cookie: string, name: string, bytes: Uint8Array) {
  const form = new FormData();
  form.append("files", new File([bytes as Uint8Array<ArrayBuffer>], name));
  return t.json("POST", "/api/reports/upload", { body: form, cookie });
}

const count = async (query: string) => Number((await t.deps.store.rows<{ n: unknown }>(sql.raw(query)))[0]!.n ?? 0);

test("a gzip report is read in batches as it is decompressed: no batch holds the whole report", async () => {
  const batches: AggregateRecord[][] = [];
  const result = await streamAggregate(gzipSync(strToU8(report("batches"))), DEFAULT_LIMITS, {
    head: async (head) => (expect(head.reportId).toBe("batches"), true),
    records: async (batch) => void batches.push(batch),
  });
  expect(result).toMatchObject({ recordCount: RECORDS, complete: true, head: { reportId: "batches", policy: { domain: "example.com" } } });
  expect(batches.length).toBeGreaterThan(1);
  expect(batches.reduce((n, b) => n + b.length, 0)).toBe(RECORDS);
  expect(Math.max(...batches.map((b) => b.length))).toBeLessThan(RECORDS);
  expect(batches.slice(0, -1).every((b) => b.length >= RECORD_BATCH)).toBe(true);
  expect(batches.flat().map((r) => r.sourceIp).slice(0, 3)).toEqual(["10.1.0.0", "10.1.0.1", "10.1.0.2"]);
}, 120_000);

test("a large uploaded report is stored whole, with its counts and roll-ups, and once", async () => {
  const { cookie, orgId } = await setUp();
  const bytes = gzipSync(strToU8(report("large-1")));
  const res = await upload(cookie, "large.xml.gz", bytes);
  expect(res.status).toBe(200);
  expect(res.body.results[0]).toMatchObject({ status: "ingested", kind: "aggregate", reports: [{ domain: "example.com", reportId: "large-1", recordCount: RECORDS, messageCount: messages() }] });
  expect(await count(`SELECT count(*) AS n FROM aggregate_records WHERE org_id = '${orgId}'`)).toBe(RECORDS);
  // each with its DKIM and SPF result
  expect(await count(`SELECT count(*) AS n FROM aggregate_records WHERE org_id = '${orgId}' AND dkim_results LIKE '[[%]]' AND spf_results LIKE '[[%]]'`)).toBe(RECORDS);
  expect(await count(`SELECT record_count AS n FROM aggregate_reports WHERE org_id = '${orgId}'`)).toBe(RECORDS);
  expect(await count(`SELECT message_count AS n FROM aggregate_reports WHERE org_id = '${orgId}'`)).toBe(messages());
  expect(await count(`SELECT pass_count AS n FROM aggregate_reports WHERE org_id = '${orgId}'`)).toBe(passing());
  // roll-ups written batch by batch add up to the report
  expect(await count(`SELECT sum(messages) AS n FROM daily_domain_stats WHERE org_id = '${orgId}'`)).toBe(messages());
  expect(await count(`SELECT sum(passed) AS n FROM daily_domain_stats WHERE org_id = '${orgId}'`)).toBe(passing());
  expect(await count(`SELECT sum(messages) AS n FROM daily_sender_stats WHERE org_id = '${orgId}'`)).toBe(messages());
  expect(await count(`SELECT count(*) AS n FROM daily_sender_stats WHERE org_id = '${orgId}'`)).toBe(ADDRESSES);

  const again = await upload(cookie, "large-again.xml.gz", bytes);
  expect(again.body.results[0]).toMatchObject({ status: "duplicate", reports: [{ reportId: "large-1", recordCount: RECORDS, messageCount: messages() }] });
  expect(await count(`SELECT count(*) AS n FROM aggregate_records`)).toBe(RECORDS);
  expect(await count(`SELECT sum(messages) AS n FROM daily_domain_stats`)).toBe(messages());
}, 120_000);

test("a report refused after thousands of its records were written leaves nothing stored", async () => {
  const { cookie } = await setUp();
  const broken = report("broken").replace("</feedback>", "  <record><row><source_ip>10.9.9.9</source_ip></record>\n</feedback>");
  const res = await upload(cookie, "broken.xml.gz", gzipSync(strToU8(broken)));
  expect(res.body.results[0]).toMatchObject({ status: "rejected" });
  expect(res.body.results[0].error).toContain("malformed");
  for (const table of ["aggregate_reports", "aggregate_records", "daily_domain_stats", "daily_sender_stats"]) {
    expect([table, await count(`SELECT count(*) AS n FROM ${table}`)]).toEqual([table, 0]);
  }
  // over the record bound: refused whole as well
  const limited = await streamAggregate(strToU8(report("bound", 10)), { ...DEFAULT_LIMITS, maxRecords: 5 }, { head: async () => true, records: async () => {} }).catch((error) => error);
  expect(String(limited.message)).toContain("more than 5 records");
}, 120_000);
