/**
 * Group commit for bulk ingest: many files in one transaction. A file whose write fails is
 * refused alone while the rest of its group is stored (written again one transaction each); a
 * report twice in one group is a duplicate the second time; a group's roll-ups, report events and
 * report arrivals are those of its files ingested one by one; a CLI run killed mid-run leaves whole reports only, and
 * running it again stores the rest. Runs on SQLite and, in the suite's PostgreSQL run, there.
 */
import { afterAll, afterEach, beforeEach, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { eq, sql } from "drizzle-orm";
import { makeTestApp, TEST_POSTGRES_URL, type TestApp } from "../../../tests/support/app";
import { startDnsServer, type TestDnsServer } from "../../../tests/support/dns-server";
import { signedInMember } from "../../../tests/support/fixtures";
import { fixture, gzip, sampleAggregate, xmlBytes, zip } from "../../../tests/support/report-fixtures";
import { parseReportFile } from "../../lib/reports/parse";
import { domainNamesOf } from "../domains/service";
import { GroupIngest, writeGroup } from "./group-ingest";
import { ingestFile, prepareFile, type IngestResult, type PreparedFile } from "./ingest";
import { reverseDnsSettled } from "./reverse-dns";

let t: TestApp;
let orgId = "";
let cookie = "";
const dir = mkdtempSync(join(tmpdir(), "dw-group-ingest-"));
beforeEach(async () => {
  t = await makeTestApp(TEST_POSTGRES_URL ? {} : { dbPath: join(dir, `g-${Math.random().toString(36).slice(2)}.db`) });
  ({ orgId, cookie } = await signedInMember(t.deps.store, "member"));
  await t.deps.store.write((tx) => tx.insert(t.deps.store.t.domains).values({ orgId, name: "example.com" }));
});
afterEach(async () => {
  await reverseDnsSettled();
  await t.close();
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** An aggregate report of `records` records from distinct documentation addresses. */
function report(id: string, records = 3) {
  return sampleAggregate("example.com", {
    reportId: id,
    records: Array.from({ length: records }, (_, r) => ({ sourceIp: `198.51.${100 + (r >> 8)}.${r & 255}`, count: 1 + (r % 5), dkim: "pass" as const, spf: "fail" as const })),
  });
}

/** Runs files through one GroupIngest (parsed here, as the CLI's workers do); their answers in order. */
async function ingestGroup(files: { name: string; bytes: Uint8Array; poison?: boolean }[], groupFiles = 64): Promise<IngestResult[]> {
  const answers: IngestResult[] = [];
  const groups = new GroupIngest(t.deps, { files: groupFiles, onResult: (r) => void answers.push(r) });
  for (const f of files) {
    const parsed = await parseReportFile(f.bytes).catch((error: Error) => error);
    const last = parsed instanceof Error ? undefined : parsed.reports.at(-1);
    if (f.poison && last?.kind === "aggregate") {
      // a record the database refuses (its message count is NOT NULL): the write fails half-way through the file (in its last report)
      (last.records[1] as { count: unknown }).count = null;
    }
    await groups.add({ orgId, fileName: f.name, bytes: f.bytes, source: "cli", parsed });
  }
  await groups.finish();
  return answers;
}

async function storedReports(): Promise<{ reportId: string; recordCount: number; records: number }[]> {
  const rows = await t.deps.store.rows<{ report_id: string; record_count: number | string; records: number | string }>(
    sql`SELECT r.report_id, r.record_count, (SELECT count(*) FROM aggregate_records x WHERE x.report_seq = r.seq) AS records FROM aggregate_reports r WHERE r.org_id = ${orgId} ORDER BY r.report_id`,
  );
  return rows.map((r) => ({ reportId: r.report_id, recordCount: Number(r.record_count), records: Number(r.records) }));
}

async function domainMessages(): Promise<number> {
  const [row] = await t.deps.store.rows<{ n: number | string | null }>(sql`SELECT sum(messages) AS n FROM daily_domain_stats WHERE org_id = ${orgId}`);
  return Number(row?.n ?? 0);
}

test("a file whose write fails is refused alone; the other files of its group are stored", async () => {
  const files = ["g-1", "g-2", "g-3", "g-4", "g-5"].map((id) => ({ name: `${id}.xml`, bytes: xmlBytes(report(id, 4)), poison: id === "g-3" }));
  const answers = await ingestGroup(files);
  expect(answers.map((a) => [a.fileName, a.status])).toEqual([
    ["g-1.xml", "ingested"],
    ["g-2.xml", "ingested"],
    ["g-3.xml", "rejected"],
    ["g-4.xml", "ingested"],
    ["g-5.xml", "ingested"],
  ]);
  expect(answers[2]!.code).toBe("unavailable");
  expect(answers[2]!.error).toContain("nothing was saved");
  // the refused file left nothing: no report row, no record, no roll-up counts
  expect(await storedReports()).toEqual(["g-1", "g-2", "g-4", "g-5"].map((reportId) => ({ reportId, recordCount: 4, records: 4 })));
  const perReport = 1 + 2 + 3 + 4;
  expect(await domainMessages()).toBe(4 * perReport);

  // the refused file, sent again sound, is stored; the others are duplicates
  const again = await ingestGroup(files.map((f) => ({ ...f, poison: false })));
  expect(again.map((a) => a.status)).toEqual(["duplicate", "duplicate", "ingested", "duplicate", "duplicate"]);
  expect((await storedReports()).map((r) => r.reportId)).toEqual(["g-1", "g-2", "g-3", "g-4", "g-5"]);
  expect(await domainMessages()).toBe(5 * perReport);
}, 60_000);

test("the same report twice in one group is stored once and answered duplicate the second time", async () => {
  const twice = gzip(xmlBytes(report("same", 5)));
  const answers = await ingestGroup([
    { name: "a.xml.gz", bytes: twice },
    { name: "b.xml", bytes: xmlBytes(report("other", 2)) },
    { name: "a-copy.xml.gz", bytes: twice },
  ]);
  expect(answers.map((a) => [a.fileName, a.status])).toEqual([
    ["a.xml.gz", "ingested"],
    ["b.xml", "ingested"],
    ["a-copy.xml.gz", "duplicate"],
  ]);
  // the duplicate names the stored report
  expect(answers[2]!.reports[0]!.id).toBe(answers[0]!.reports[0]!.id);
  expect(await storedReports()).toEqual([
    { reportId: "other", recordCount: 2, records: 2 },
    { reportId: "same", recordCount: 5, records: 5 },
  ]);
}, 60_000);

test("groups are bounded: many files in small groups are all stored, answers in file order", async () => {
  const files = Array.from({ length: 23 }, (_, i) => ({ name: `f${String(i).padStart(2, "0")}.xml`, bytes: xmlBytes(report(`f${String(i).padStart(2, "0")}`, 3)) }));
  files.splice(7, 0, { name: "broken.xml", bytes: new TextEncoder().encode("<feedback><report_metadata>") });
  const answers = await ingestGroup(files, 5);
  expect(answers.map((a) => a.fileName)).toEqual(files.map((f) => f.name));
  expect(answers.filter((a) => a.status === "ingested")).toHaveLength(23);
  expect(answers[7]!.status).toBe("rejected");
  expect((await storedReports()).every((r) => r.records === 3 && r.recordCount === 3)).toBe(true);
  expect(await storedReports()).toHaveLength(23);
}, 60_000);

test("a file whose domain was removed before its group was written is refused and leaves no row; the group's other files are stored", async () => {
  const { store } = t.deps;
  await store.write((tx) => tx.insert(store.t.domains).values({ orgId, name: "gone.example" }));
  const owned = await domainNamesOf(t.deps, orgId);
  const gone = owned.find((d) => d.name === "gone.example")!;
  const files = [
    { name: "kept.xml", bytes: xmlBytes(report("kept", 3)) },
    { name: "gone.xml", bytes: xmlBytes(sampleAggregate("gone.example", { reportId: "gone" })) },
  ];
  const prepared: PreparedFile[] = [];
  for (const f of files) prepared.push((await prepareFile(t.deps, { orgId, fileName: f.name, bytes: f.bytes, source: "cli" }, owned)) as PreparedFile);
  // the domain goes (a user removes it) after the files were routed to it, before their group is written
  await store.write((tx) => tx.delete(store.t.domains).where(eq(store.t.domains.id, gone.id)));
  const written = await writeGroup(t.deps, prepared);
  expect(Array.isArray(written.get(prepared[0]!))).toBe(true);
  expect(written.get(prepared[1]!)).toMatchObject({ fileName: "gone.xml", status: "rejected", code: "unavailable" });
  expect(await storedReports()).toEqual([{ reportId: "kept", recordCount: 3, records: 3 }]);
  const [orphans] = await store.rows<{ n: number | string }>(
    sql`SELECT (SELECT count(*) FROM aggregate_reports WHERE domain_id = ${gone.id}) + (SELECT count(*) FROM daily_domain_stats WHERE domain_id = ${gone.id}) + (SELECT count(*) FROM daily_sender_stats WHERE domain_id = ${gone.id}) AS n`,
  );
  expect(Number(orphans!.n)).toBe(0);
  // the database keeps enforcing its keys for every other write
  if (store.dialect === "sqlite") {
    expect(await store.rows(sql`PRAGMA foreign_keys`)).toEqual([{ foreign_keys: 1 }]);
    await expect(store.write((tx) => tx.insert(store.t.dailyDomainStats).values({ orgId, domainId: gone.id, day: 1 }))).rejects.toThrow(/FOREIGN KEY/);
  }
}, 60_000);

test("a group's roll-ups, written once merged, are those of its files written one by one", async () => {
  const { store } = t.deps;
  const other = await signedInMember(store, "member");
  await store.write((tx) => tx.insert(store.t.domains).values({ orgId: other.orgId, name: "example.com" }));
  const day1 = new Date("2024-01-01T00:00:00Z");
  const rec = (sourceIp: string, count: number, dkim: "pass" | "fail", selector: string, dkimDomain = "example.com") =>
    ({ sourceIp, count, dkim, spf: "fail" as const, disposition: "none" as const, dkimAuth: [{ domain: dkimDomain, selector, result: dkim }], spfAuth: [{ domain: "bounce.example", result: "fail" as const }] });
  const reports = [
    sampleAggregate("example.com", { reportId: "m1", begin: day1, records: [rec("192.0.2.1", 5, "pass", "s1"), rec("192.0.2.2", 3, "fail", "s1")] }),
    // the same day from another reporter, starting later: the same address again, a selector in other case
    sampleAggregate("example.com", { orgName: "yahoo.com", reportId: "m2", begin: new Date("2024-01-01T06:00:00Z"), records: [rec("192.0.2.1", 7, "fail", "S1", "EXAMPLE.com"), rec("192.0.2.3", 2, "pass", "s2")] }),
    sampleAggregate("example.com", { reportId: "m3", begin: new Date("2024-01-02T00:00:00Z"), end: new Date("2024-01-02T23:59:59Z"), records: [rec("192.0.2.1", 4, "pass", "s1")] }),
    sampleAggregate("mail.example.com", { reportId: "m4", begin: day1, records: [rec("192.0.2.1", 1, "pass", "s3", "mail.example.com")] }),
    // more sources than one multi-row upsert takes, twice on one day
    sampleAggregate("example.com", { reportId: "m5", begin: day1, records: Array.from({ length: 70 }, (_, i) => rec(`203.0.113.${i}`, 1 + (i % 4), i % 3 ? "pass" : "fail", "s1")) }),
    sampleAggregate("example.com", { orgName: "yahoo.com", reportId: "m6", begin: day1, records: Array.from({ length: 90 }, (_, i) => rec(`203.0.113.${i}`, 2, i % 2 ? "pass" : "fail", "s2")) }),
  ];
  const files = reports.map((r) => ({ name: `${r.reportId}.xml`, bytes: xmlBytes(r) }));
  // and a duplicate between them
  const answers = await ingestGroup([files[0]!, files[1]!, files[2]!, files[0]!, files[3]!, files[4]!, files[5]!]);
  expect(answers.map((a) => a.status)).toEqual(["ingested", "ingested", "ingested", "duplicate", "ingested", "ingested", "ingested"]);
  for (const f of files) expect((await ingestFile(t.deps, { orgId: other.orgId, fileName: f.name, bytes: f.bytes, source: "cli" })).status).toBe("ingested");

  const rollups = async (org: string) => {
    const out: Record<string, unknown[]> = {};
    for (const table of ["daily_domain_stats", "daily_sender_stats", "daily_country_stats", "dkim_selectors_seen"]) {
      const rows = await store.rows<Record<string, unknown>>(sql`SELECT * FROM ${sql.identifier(table)} WHERE org_id = ${org}`);
      // a sender row's DKIM and SPF results (`auth`) as their sorted entries: the same object whatever order its keys were written in
      const value = (k: string, v: unknown) =>
        k === "auth" && typeof v === "string" ? Object.entries(JSON.parse(v) as Record<string, number>).map(([key, n]) => [key, Number(n)]).sort() : typeof v === "bigint" || (typeof v === "string" && /^\d+$/.test(v)) ? Number(v) : v;
      out[table] = rows.map(({ org_id: _o, domain_id: _d, ...rest }) => JSON.stringify(Object.fromEntries(Object.entries(rest).map(([k, v]) => [k, value(k, v)])))).sort();
    }
    return out;
  };
  const grouped = await rollups(orgId);
  // written by the group's own transaction (not by its fallback, one transaction per file)
  expect(t.logs.filter((line) => line.includes("reports.group_write_failed"))).toEqual([]);
  expect(grouped.daily_domain_stats).toHaveLength(2);
  expect(grouped.daily_sender_stats!.filter((row) => String(row).includes('"auth":[[')).length).toBeGreaterThan(5);
  expect(grouped).toEqual(await rollups(other.orgId));
  // and they count every stored message once: per country, per sender and per DKIM result as per day
  const messages = reports.reduce((n, r) => n + r.records.reduce((m, x) => m + x.count, 0), 0);
  // the messages of every DKIM result the sender rows carry (`auth`: result key → messages; a DKIM result's key starts with d)
  const dkimMessages =
    store.dialect === "sqlite"
      ? sql`(SELECT sum(j.value) FROM daily_sender_stats s, json_each(s.auth) j WHERE s.org_id = ${orgId} AND j.key LIKE 'd%')`
      : sql`(SELECT sum(j.value::bigint) FROM daily_sender_stats s, jsonb_each_text(s.auth::jsonb) j WHERE s.org_id = ${orgId} AND j.key LIKE 'd%')`;
  const [sums] = await store.rows<Record<string, number | string>>(sql`SELECT
    (SELECT sum(messages) FROM daily_domain_stats WHERE org_id = ${orgId}) AS domains, (SELECT sum(messages) FROM daily_country_stats WHERE org_id = ${orgId}) AS countries,
    (SELECT sum(messages) FROM daily_sender_stats WHERE org_id = ${orgId}) AS senders, ${dkimMessages} AS dkim,
    (SELECT count(*) FROM (SELECT DISTINCT domain_id, day, source_ip FROM daily_sender_stats WHERE org_id = ${orgId}) x) AS addressDays`);
  expect(Object.values(sums!).map(Number)).toEqual([messages, messages, messages, messages, 3 + 90 + 1]);
}, 60_000);

test("a group's report events and report arrivals are those of its files ingested one by one; a refused file's and a duplicate's count nowhere", async () => {
  const { store } = t.deps;
  const other = await signedInMember(store, "member");
  await store.write(async (tx) => {
    await tx.insert(store.t.domains).values({ orgId, name: "other.example" });
    await tx.insert(store.t.domains).values([{ orgId: other.orgId, name: "example.com" }, { orgId: other.orgId, name: "other.example" }]);
  });
  // reports of the last day, so their sources are new and the pass rate is judged
  const begin = new Date(Date.now() - 20 * 3_600_000);
  const end = new Date(begin.getTime() + 10 * 3_600_000);
  const rec = (sourceIp: string, count: number, pass: boolean) =>
    ({ sourceIp, count, dkim: pass ? ("pass" as const) : ("fail" as const), spf: pass ? ("pass" as const) : ("fail" as const), disposition: "none" as const });
  const aggregate = (domain: string, reportId: string, records: ReturnType<typeof rec>[], orgName = "google.com") => ({ name: `${reportId}.xml`, bytes: xmlBytes(sampleAggregate(domain, { orgName, reportId, begin, end, records })) });
  const files = [
    // a new source failing in volume (15 > 10) and a pass rate of 87% (< 90%)
    aggregate("example.com", "e1", [rec("209.85.220.41", 100, true), rec("198.51.100.7", 15, false)]),
    // another domain: a new failing source; too few messages to judge its pass rate, also with its second report
    aggregate("other.example", "o1", [rec("198.51.100.20", 12, false), rec("209.85.220.42", 1, true)]),
    aggregate("other.example", "o2", [rec("209.85.220.42", 3, true)], "yahoo.com"),
    // a failure report about example.com: an event of its own
    { name: "arf.eml", bytes: fixture("arf-auth-failure.eml") },
  ];
  // refused in the group (its second report fails after its first was written): a source that would alert, the pass rate it would sink, a later arrival
  const bad = (id: string) => xmlBytes(sampleAggregate("example.com", { reportId: id, begin, end: new Date(end.getTime() + 5 * 3_600_000), records: [rec("203.0.113.66", 50, false), rec("203.0.113.67", 50, false)] }));
  const poisoned = { name: "bad.zip", bytes: zip({ "bad-1.xml": bad("bad-1"), "bad-2.xml": bad("bad-2") }), poison: true };
  const answers = await ingestGroup([files[0]!, poisoned, files[1]!, files[0]!, files[2]!, files[3]!]);
  expect(answers.map((a) => a.status)).toEqual(["ingested", "rejected", "ingested", "duplicate", "ingested", "ingested"]);
  for (const f of files) expect((await ingestFile(t.deps, { orgId: other.orgId, fileName: f.name, bytes: f.bytes, source: "cli" })).status).toBe("ingested");

  // as the events API and the domains API show them (a failure report's event names its own stored report)
  const seen = async (who: string) => {
    const events = (await t.json("GET", "/api/events", { cookie: who })).body.events as { type: string; domain: string; data: Record<string, unknown>; title: string; summary: string; severity: string }[];
    const domains = (await t.json("GET", "/api/domains", { cookie: who })).body as { name: string; lastReportAt: string | null }[];
    return {
      events: events.map(({ type, domain, data: { reportId: _r, ...data }, title, summary, severity }) => JSON.stringify({ type, domain, data, title, summary, severity })).sort(),
      domains: domains.map((d) => [d.name, d.lastReportAt]),
    };
  };
  const grouped = await seen(cookie);
  expect(grouped.events.map((e) => JSON.parse(e).type).sort()).toEqual(["reports.failure_report", "reports.new_failing_source", "reports.new_failing_source", "reports.pass_rate_low"]);
  expect(grouped.events.map((e) => JSON.parse(e).data.sourceIp).filter(Boolean).sort()).toEqual(["192.0.2.1", "198.51.100.20", "198.51.100.7"]);
  expect(grouped.events.join("\n")).not.toContain("203.0.113.66");
  expect(JSON.parse(grouped.events.find((e) => e.includes("pass_rate_low"))!).data).toMatchObject({ messages: 115, passed: 100 });
  expect(grouped.domains.every(([, at]) => at !== null)).toBe(true);
  expect(grouped).toEqual(await seen(other.cookie));
  // the conditions held active, which decide what alerts next (a failure report's names its stored report)
  const conditions = async (org: string) =>
    (await store.rows<{ key: string }>(sql`SELECT key FROM alert_conditions WHERE org_id = ${org}`)).map((r) => r.key.replace(/^(reports\.failure_report\|[^|]*)\|.*$/, "$1")).sort();
  expect(await conditions(orgId)).toEqual(await conditions(other.orgId));
}, 60_000);

// ---------------------------------------------------------------------------------------------

let dns: TestDnsServer | null = null;
afterAll(async () => {
  await dns?.close();
});

const MAIN = join(import.meta.dir, "../../main.ts");

test("a CLI ingest killed mid-run leaves whole reports only, and running it again stores the rest", async () => {
  dns ??= await startDnsServer({});
  const [org] = await t.deps.store.rows<{ slug: string }>(sql`SELECT slug FROM organizations WHERE id = ${orgId}`);
  const files = join(dir, `kill-${Math.random().toString(36).slice(2)}`);
  mkdirSync(files);
  const FILES = 400;
  const RECORDS = 150;
  // a refused file first: its line comes out once its group has committed, a sign the run is under way
  writeFileSync(join(files, "000-broken.xml"), "<feedback><report_metadata>");
  for (let f = 1; f <= FILES; f++) writeFileSync(join(files, `${String(f).padStart(3, "0")}.xml.gz`), gzip(xmlBytes(report(`k${String(f).padStart(3, "0")}`, RECORDS))));
  const target = TEST_POSTGRES_URL ? ["--database-url", t.deps.config.databaseUrl!] : ["--db", t.deps.config.db];
  const args = [process.execPath, MAIN, "ingest", "--org", org!.slug, ...target, "--dns-server", `${dns.host}:${dns.port}`, "--dns-timeout", "200", files];
  const env = { PATH: process.env.PATH ?? "", HOME: dir };

  const first = Bun.spawn(args, { env, stdout: "pipe", stderr: "pipe" });
  const reader = first.stderr.getReader();
  let err = "";
  while (!err.includes("refused")) {
    const { value, done } = await reader.read();
    if (done) break;
    err += new TextDecoder().decode(value);
  }
  first.kill("SIGKILL");
  await first.exited;
  expect(err).toContain("000-broken.xml");

  // whole reports only: every stored report has all its records, and the roll-ups count exactly them
  const afterKill = await storedReports();
  expect(afterKill.length).toBeGreaterThan(0);
  // killed mid-run, not after it: a run of this size takes many groups
  expect(afterKill.length).toBeLessThan(FILES);
  for (const r of afterKill) expect(r).toMatchObject({ recordCount: RECORDS, records: RECORDS });
  const perReport = Array.from({ length: RECORDS }, (_, r) => 1 + (r % 5)).reduce((a, b) => a + b, 0);
  expect(await domainMessages()).toBe(afterKill.length * perReport);

  const second = Bun.spawn(args, { env, stdout: "pipe", stderr: "pipe" });
  const [out, code] = await Promise.all([new Response(second.stdout).text(), second.exited]);
  expect(code).toBe(1); // the broken file is refused again
  const ingested = FILES - afterKill.length;
  expect(out).toContain(`${FILES + 1} file(s) read — ${ingested} ingested, ${afterKill.length} already ingested, 1 refused; ${FILES} report(s).`);
  const all = await storedReports();
  expect(all).toHaveLength(FILES);
  for (const r of all) expect(r).toMatchObject({ recordCount: RECORDS, records: RECORDS });
  expect(await domainMessages()).toBe(FILES * perReport);
}, 240_000);
