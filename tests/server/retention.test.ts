/**
 * Retention: the purge deletes each organisation's aggregate reports (records, auth results) and
 * failure reports older than its own retention, in batches, keeps the recent ones and every daily
 * roll-up, and leaves other organisations alone. Runs on both stores.
 */
import { afterEach, expect, test } from "bun:test";
import { asc, eq } from "drizzle-orm";
import { claimLease } from "../../src/db/leases";
import { ingestFile } from "../../src/features/reports/ingest";
import { purgeExpired, startRetentionPurge } from "../../src/features/reports/retention";
import { makeTestApp, type TestApp } from "../support/app";
import { signedInMember, type SignedIn } from "../support/fixtures";
import { sampleAggregate, xmlBytes } from "../support/report-fixtures";
import { dkimResultsOf, spfResultsOf } from "../../src/features/reports/record-auth";

let t: TestApp;
afterEach(() => t?.close());

const NOW = new Date("2026-03-01T12:00:00Z");
const daysAgo = (n: number) => new Date(NOW.getTime() - n * 86_400_000);

async function org(name: string, domain: string): Promise<SignedIn> {
  const who = await signedInMember(t.deps.store, "owner", name);
  const { store } = t.deps;
  await store.write((tx) => tx.insert(store.t.domains).values({ orgId: who.orgId, name: domain }));
  return who;
}

async function aggregate(orgId: string, domain: string, age: number, id: string) {
  const begin = daysAgo(age);
  const report = sampleAggregate(domain, { reportId: id, begin, end: new Date(begin.getTime() + 86_399_000) });
  const result = await ingestFile(t.deps, { orgId, fileName: `${id}.xml`, bytes: xmlBytes(report), source: "upload" });
  expect(result.status).toBe("ingested");
}

async function failure(orgId: string, domain: string, age: number, id: string, arrival = true) {
  const { store } = t.deps;
  const [d] = await store.db.select().from(store.t.domains).where(eq(store.t.domains.orgId, orgId));
  await store.write((tx) =>
    tx.insert(store.t.failureReports).values({ orgId, domainId: d!.id, domain, reporterOrg: "mx.example", reportId: id, arrivalDate: arrival ? daysAgo(age) : null, processedAt: daysAgo(age), source: "upload" }),
  );
}

async function setRetention(who: SignedIn, aggregateDays: number, failureDays: number) {
  const current = (await t.json("GET", "/api/settings", { cookie: who.cookie })).body;
  const res = await t.json("PUT", "/api/settings", { cookie: who.cookie, body: { ...current, retentionAggregateDays: aggregateDays, retentionFailureDays: failureDays } });
  expect(res.status).toBe(200);
  expect(res.body).toMatchObject({ retentionAggregateDays: aggregateDays, retentionFailureDays: failureDays });
}

async function reportIds(orgId: string) {
  const { store } = t.deps;
  const rows = await store.db.select({ id: store.t.aggregateReports.reportId }).from(store.t.aggregateReports).where(eq(store.t.aggregateReports.orgId, orgId)).orderBy(asc(store.t.aggregateReports.reportId));
  return rows.map((r) => r.id);
}
async function failureIds(orgId: string) {
  const { store } = t.deps;
  const rows = await store.db.select({ id: store.t.failureReports.reportId }).from(store.t.failureReports).where(eq(store.t.failureReports.orgId, orgId)).orderBy(asc(store.t.failureReports.reportId));
  return rows.map((r) => r.id);
}
async function counts() {
  const { store } = t.deps;
  const { dkimResults: dkim, spfResults: spf, headerFrom } = store.t.aggregateRecords;
  const records = await store.db.select({ dkim, spf, headerFrom }).from(store.t.aggregateRecords);
  // the DKIM and SPF results the records carry
  const auth = records.reduce((n, r) => n + dkimResultsOf(r.dkim, r.headerFrom).length + spfResultsOf(r.spf, r.headerFrom).length, 0);
  return { records: records.length, auth };
}
async function rollups() {
  const { store } = t.deps;
  const days = await store.db.select().from(store.t.dailyDomainStats);
  const sources = await store.db.select().from(store.t.dailySenderStats);
  const key = (r: { orgId: string; day: number }) => `${r.orgId}:${r.day}`;
  return { days: days.map((r) => JSON.stringify(r)).sort(), sources: sources.map((r) => JSON.stringify(r)).sort(), dayKeys: days.map(key) };
}

test("the purge deletes what is older than each organization's retention, keeps the rest and every roll-up", async () => {
  t = await makeTestApp({ deps: { now: () => NOW } });
  const a = await org("Defaults Org", "defaults.example"); // 400 / 90 days
  const b = await org("Short Org", "short.example");
  const c = await org("Long Org", "long.example");
  await setRetention(b, 60, 7);
  await setRetention(c, 3650, 3650);

  await aggregate(a.orgId, "defaults.example", 500, "a-old");
  await aggregate(a.orgId, "defaults.example", 401, "a-old-2");
  await aggregate(a.orgId, "defaults.example", 100, "a-recent");
  await failure(a.orgId, "defaults.example", 120, "a-f-old");
  await failure(a.orgId, "defaults.example", 95, "a-f-old-processed", false);
  await failure(a.orgId, "defaults.example", 10, "a-f-recent");
  await aggregate(b.orgId, "short.example", 100, "b-old");
  await aggregate(b.orgId, "short.example", 20, "b-recent");
  await failure(b.orgId, "short.example", 10, "b-f-old");
  await failure(b.orgId, "short.example", 3, "b-f-recent");
  await aggregate(c.orgId, "long.example", 500, "c-old-but-kept");
  await failure(c.orgId, "long.example", 500, "c-f-kept");

  const before = await rollups();
  expect(before.dayKeys.length).toBe(6);
  expect(await counts()).toEqual({ records: 12, auth: 18 });

  // 3 rows a write: every organisation's deletions take several batches
  const result = await purgeExpired({ ...t.deps, now: () => NOW }, { batch: 3 });
  expect(result).toEqual({ aggregateReports: 3, aggregateRecords: 6, failureReports: 3, organizations: 2 });

  expect(await reportIds(a.orgId)).toEqual(["a-recent"]);
  expect(await failureIds(a.orgId)).toEqual(["a-f-recent"]);
  expect(await reportIds(b.orgId)).toEqual(["b-recent"]);
  expect(await failureIds(b.orgId)).toEqual(["b-f-recent"]);
  expect(await reportIds(c.orgId)).toEqual(["c-old-but-kept"]);
  expect(await failureIds(c.orgId)).toEqual(["c-f-kept"]);
  // 3 reports of 2 records each, each record with its auth results, are gone
  expect(await counts()).toEqual({ records: 6, auth: 9 });
  // the roll-ups of the deleted reports are all still there
  expect(await rollups()).toEqual(before);

  // the trends still count the deleted days
  const trend = await t.json("GET", "/api/trends?days=400", { cookie: b.cookie });
  expect(trend.status).toBe(200);
  expect(JSON.stringify(trend.body)).toContain("10");

  // the purge is in the audit log of the organisations it touched, as the system
  const audit = await t.json("GET", "/api/audit?action=retention.purged", { cookie: a.cookie });
  expect(audit.body.entries).toHaveLength(1);
  expect(audit.body.entries[0]).toMatchObject({ actorKind: "system", data: { aggregateReports: 2, aggregateRecords: 4, failureReports: 2, aggregateDays: 400, failureDays: 90 } });
  expect((await t.json("GET", "/api/audit?action=retention.purged", { cookie: c.cookie })).body.entries).toHaveLength(0);

  // a second run finds nothing
  expect(await purgeExpired({ ...t.deps, now: () => NOW })).toEqual({ aggregateReports: 0, aggregateRecords: 0, failureReports: 0, organizations: 0 });
});

test("retention below the minimum is refused with a clear message", async () => {
  t = await makeTestApp();
  const a = await org("Min Org", "min.example");
  const current = (await t.json("GET", "/api/settings", { cookie: a.cookie })).body;
  expect(current).toMatchObject({ retentionAggregateDays: 400, retentionFailureDays: 90 });
  const low = await t.json("PUT", "/api/settings", { cookie: a.cookie, body: { ...current, retentionAggregateDays: 29 } });
  expect(low.status).toBe(400);
  expect(low.body.error.message).toBe("Keep aggregate reports 30 to 3650 days");
  const fail = await t.json("PUT", "/api/settings", { cookie: a.cookie, body: { ...current, retentionFailureDays: 2.5 } });
  expect(fail.status).toBe(400);
  expect(fail.body.error.message).toBe("Keep failure reports 7 to 3650 days");
});

test("the scheduled purge runs on the node that holds the lease only", async () => {
  t = await makeTestApp({ deps: { now: () => NOW } });
  const a = await org("Lease Org", "lease.example");
  await aggregate(a.orgId, "lease.example", 500, "lease-old");
  // another node holds this round
  expect(await claimLease(t.deps.store, "retention-purge", 3600, NOW, "other-node")).toBe(true);
  let runs = 0;
  const held = startRetentionPurge(t.deps, 3600, () => runs++);
  await held.stop();
  expect(runs).toBe(0);
  expect(await reportIds(a.orgId)).toEqual(["lease-old"]);
  // the lease lapsed: this node claims it and purges
  const later = new Date(NOW.getTime() + 3601_000);
  const job = startRetentionPurge({ ...t.deps, now: () => later }, 3600, () => runs++);
  await job.stop();
  expect(runs).toBe(1);
  expect(await reportIds(a.orgId)).toEqual([]);
});
