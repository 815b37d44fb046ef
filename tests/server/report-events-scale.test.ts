/**
 * Report events after a large generated aggregate report (thousands of source addresses, a
 * share of them failing DMARC in volume): the step finishes with exactly one alert and one
 * condition per new failing source, with its figures (more than one statement can insert on
 * PostgreSQL), the same report's figures again raise nothing, and the time it took is logged
 * (never asserted).
 */
import { afterEach, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { recordReportEvents } from "../../src/features/alerts/report-events";
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
  const { alertConditions, orgEvents } = t.deps.store.t;
  const events = await t.deps.store.db.select().from(orgEvents).where(eq(orgEvents.orgId, owner.orgId));
  const failing = events.filter((e) => e.type === "reports.new_failing_source");
  expect(failing.length).toBe(ADDRESSES / 4);
  // exactly the failing addresses, each once, with its figures (first seen on the report's day)
  const failingIps = Array.from({ length: ADDRESSES / 4 }, (_, i) => ipOf(i * 4));
  const firstSeenAt = new Date(Math.floor(begin.getTime() / 86_400_000) * 86_400_000).toISOString();
  expect(failing.map((e) => e.dedupeKey).sort()).toEqual(failingIps.map((ip) => `reports.new_failing_source|scale.example|${ip}`).sort());
  for (const e of failing) {
    const { sourceIp } = JSON.parse(e.data) as { sourceIp: string };
    expect({ domain: e.domain, data: JSON.parse(e.data), occurredAt: e.occurredAt.getTime() }).toEqual({
      domain: "scale.example",
      data: { sourceIp, sourceName: null, failedMessages: 30, messages: 30, firstSeenAt, threshold: 10 },
      occurredAt: Math.floor(clock.getTime() / 1000) * 1000,
    });
  }
  const conditions = await t.deps.store.db.select({ key: alertConditions.key }).from(alertConditions).where(eq(alertConditions.orgId, owner.orgId));
  expect(conditions.filter((c) => c.key.startsWith("reports.new_failing_source|")).map((c) => c.key).sort()).toEqual(failing.map((e) => e.dedupeKey!).sort());
  const again = performance.now();
  const recorded = await recordReportEvents(t.deps, owner.orgId, [{ domain: { id: domain!.id, name: "scale.example" }, kind: "aggregate", reportId: "x" }]);
  console.log(`report events again: ${((performance.now() - again) / 1000).toFixed(2)} s`);
  expect(recorded).toEqual([]);
}, 600_000);
