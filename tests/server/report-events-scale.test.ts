/**
 * Report events after a large generated aggregate report (thousands of source addresses, a
 * share of them failing DMARC in volume): the step finishes with one alert per new failing
 * source (more than one statement can insert on PostgreSQL), the same report's figures again
 * raise nothing, and the time it took is logged (never asserted).
 */
import { afterEach, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { recordReportEvents } from "../../src/features/alerts/report-events";
import { domainRollupFigures, RECENT_SOURCE_DAYS } from "../../src/features/reports/daily";
import { reverseDnsSettled } from "../../src/features/reports/reverse-dns";
import { makeTestApp, type TestApp } from "../support/app";
import { signedInMember } from "../support/fixtures";
import { sampleAggregate, xmlBytes } from "../support/report-fixtures";

let t: TestApp;
afterEach(async () => {
  await reverseDnsSettled();
  await t?.close();
});

const HOUR = 3_600_000;
/** 10,000 new failing sources: more events than one statement takes on PostgreSQL (65,535 parameters) */
const ADDRESSES = 40_000;
const ipOf = (j: number) => `10.${(j >> 16) & 255}.${(j >> 8) & 255}.${j & 255}`;

test("report events after a report with thousands of sources: one alert per new failing source, once", async () => {
  const clock = new Date();
  t = await makeTestApp({ deps: { now: () => clock } });
  const owner = await signedInMember(t.deps.store, "owner");
  const [domain] = await t.deps.store.db.insert(t.deps.store.t.domains).values({ orgId: owner.orgId, name: "scale.example" }).returning();
  const begin = new Date(clock.getTime() - 20 * HOUR);
  // every 4th address fails DMARC with 30 messages; the others pass
  const records = Array.from({ length: ADDRESSES }, (_, j) =>
    j % 4 === 0
      ? { sourceIp: ipOf(j), count: 30, dkim: "fail" as const, spf: "fail" as const, spfAuth: [{ domain: "spoof.example", result: "fail" as const }] }
      : { sourceIp: ipOf(j), count: 5, dkim: "pass" as const, spf: "pass" as const, dkimAuth: [{ domain: "scale.example", selector: "s1", result: "pass" as const }], spfAuth: [{ domain: "scale.example", result: "pass" as const }] },
  );
  const form = new FormData();
  form.append("files", new File([xmlBytes(sampleAggregate("scale.example", { reportId: "scale-1", begin, end: new Date(begin.getTime() + 10 * HOUR), records })) as Uint8Array<ArrayBuffer>], "scale.xml"));
  const started = performance.now();
  const res = await t.json("POST", "/api/reports/upload", { body: form, cookie: owner.cookie });
  console.log(`upload of ${ADDRESSES} sources on ${t.deps.store.dialect}: ${((performance.now() - started) / 1000).toFixed(2)} s`);
  expect(res.body.results[0].status).toBe("ingested");
  const { orgEvents } = t.deps.store.t;
  const events = await t.deps.store.db.select({ type: orgEvents.type }).from(orgEvents).where(eq(orgEvents.orgId, owner.orgId));
  expect(events.filter((e) => e.type === "reports.new_failing_source").length).toBe(ADDRESSES / 4);
  const again = performance.now();
  const recorded = await recordReportEvents(t.deps, owner.orgId, [{ domain: { id: domain!.id, name: "scale.example" }, kind: "aggregate", reportId: "x" }]);
  console.log(`report events again: ${((performance.now() - again) / 1000).toFixed(2)} s`);
  expect(recorded).toEqual([]);
}, 600_000);

test("the roll-up figures list only sources seen lately, with their totals since first seen", async () => {
  t = await makeTestApp();
  const owner = await signedInMember(t.deps.store, "owner");
  const { domains, dailyDomainStats, dailySourceStats } = t.deps.store.t;
  const [domain] = await t.deps.store.db.insert(domains).values({ orgId: owner.orgId, name: "history.example" }).returning();
  const last = 20_000;
  const old = last - RECENT_SOURCE_DAYS - 5;
  const row = (day: number, sourceIp: string, messages: number, passed: number) => ({ orgId: owner.orgId, domainId: domain!.id, day, sourceIp, messages, passed });
  await t.deps.store.db.insert(dailyDomainStats).values([
    { orgId: owner.orgId, domainId: domain!.id, day: old, messages: 30, passed: 10 },
    { orgId: owner.orgId, domainId: domain!.id, day: last, messages: 12, passed: 10 },
  ]);
  await t.deps.store.db.insert(dailySourceStats).values([
    row(old, "192.0.2.1", 10, 0), // seen long ago and lately: totals over both days
    row(last, "192.0.2.1", 4, 4),
    row(old, "192.0.2.2", 20, 10), // seen long ago only: not listed
    row(last - RECENT_SOURCE_DAYS, "192.0.2.3", 8, 6), // first day of the window: listed
  ]);
  const figures = await domainRollupFigures(t.deps, owner.orgId, domain!.id);
  expect(figures?.lastDay).toBe(last);
  expect([...figures!.sources].sort((a, b) => a.sourceIp.localeCompare(b.sourceIp))).toEqual([
    { sourceIp: "192.0.2.1", firstDay: old, messages: 14, passed: 4 },
    { sourceIp: "192.0.2.3", firstDay: last - RECENT_SOURCE_DAYS, messages: 8, passed: 6 },
  ]);
});
