/**
 * `dmarcwarden ingest` on many files: parsed on a worker while the reports are stored, every
 * file accounted for, reverse DNS bounded by one limit for the whole run and asked once per
 * address however many files name it.
 */
import { afterAll, afterEach, beforeEach, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "drizzle-orm";
import { makeTestApp, type TestApp } from "../../tests/support/app";
import { startDnsServer, type TestDnsServer, type Zone } from "../../tests/support/dns-server";
import { signedInMember } from "../../tests/support/fixtures";
import { fixture, gzip, xmlBytes } from "../../tests/support/report-fixtures";
import { createResolver } from "../features/dns/resolver";
import { MAX_IN_FLIGHT, reverseDnsSettled } from "../features/reports/reverse-dns";
import { ingestPaths } from "./ingest";

let t: TestApp;
let dns: TestDnsServer | null = null;
const dir = mkdtempSync(join(tmpdir(), "dw-cli-ingest-"));
beforeEach(async () => {
  t = await makeTestApp();
});
afterEach(async () => {
  await reverseDnsSettled();
  await t.close();
});
afterAll(async () => {
  await dns?.close();
  rmSync(dir, { recursive: true, force: true });
});

const FILES = 60;
const RECORDS = 12;
/** 240 addresses, each named by three files */
const ipOf = (file: number, record: number) => `192.0.${(file * RECORDS + record) % 240 >= 120 ? 3 : 2}.${((file * RECORDS + record) % 240) % 120}`;

test("many files: all stored in order, reverse DNS under one global limit and asked once per address", async () => {
  const zone: Zone = {};
  for (let i = 0; i < 120; i++) zone[`${i}.2.0.192.in-addr.arpa`] = { PTR: [`mta${i}.mail.example.net.`] };
  dns = await startDnsServer(zone, { latencyMs: 40 });
  const real = createResolver({ servers: [{ host: dns.host, port: dns.port }], timeoutMs: 2000, retries: 0, cache: false });
  let inFlight = 0;
  let mostInFlight = 0;
  const asked = new Map<string, number>();
  // the real resolver (already without a cache), counted; asked for another cache policy it stays this counted one
  const counted = Object.assign(Object.create(real), {
    withPolicy: () => counted,
    async reverse(ip: string) {
      asked.set(ip, (asked.get(ip) ?? 0) + 1);
      mostInFlight = Math.max(mostInFlight, ++inFlight);
      try {
        return await real.reverse(ip);
      } finally {
        inFlight--;
      }
    },
  });
  t.deps.resolver = counted;

  const { orgId } = await signedInMember(t.deps.store, "member");
  await t.deps.store.write((tx) => tx.insert(t.deps.store.t.domains).values({ orgId, name: "example.com" }));
  for (let f = 0; f < FILES; f++) {
    const records = Array.from({ length: RECORDS }, (_, r) => ({ sourceIp: ipOf(f, r), count: 1 + r }));
    const report = { orgName: "google.com", reportId: `cli-${f}`, begin: new Date("2024-01-01T00:00:00Z"), end: new Date("2024-01-01T23:59:59Z"), domain: "example.com", records };
    writeFileSync(join(dir, `r${String(f).padStart(3, "0")}.xml.gz`), gzip(xmlBytes(report)));
  }
  writeFileSync(join(dir, "z-broken.xml"), fixture("truncated.xml"));

  const order: string[] = [];
  const summary = await ingestPaths(t.deps, orgId, [dir], (_done, _total, result) => order.push(result.fileName));
  expect(summary).toMatchObject({ files: FILES + 1, ingested: FILES, duplicates: 0, reports: FILES });
  expect(summary.refused.map((r) => [r.fileName, r.code])).toEqual([[join(dir, "z-broken.xml"), "invalid"]]);
  expect(order).toEqual([...Array.from({ length: FILES }, (_, f) => join(dir, `r${String(f).padStart(3, "0")}.xml.gz`)), join(dir, "z-broken.xml")]);

  await reverseDnsSettled();
  expect(mostInFlight).toBeLessThanOrEqual(MAX_IN_FLIGHT);
  expect(asked.size).toBe(240);
  expect(Math.max(...asked.values())).toBe(1);
  const rows = await t.deps.store.rows<{ n: number | string; named: number | string }>(sql`SELECT count(*) AS n, count(n.ptr) AS named FROM aggregate_records r LEFT JOIN source_names n ON n.org_id = r.org_id AND n.source_ip = r.source_ip`);
  expect(Number(rows[0]!.n)).toBe(FILES * RECORDS);
  // the 192.0.2.x half has PTR names, for the records of every file that names them
  expect(Number(rows[0]!.named)).toBe((FILES * RECORDS) / 2);
}, 120_000);
