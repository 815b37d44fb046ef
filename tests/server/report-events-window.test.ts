/**
 * The new-failing-source alert reads only the sources first seen within the organization's
 * window: a source that sent before the window is not new however much it fails now, one first
 * seen inside a wider window is, with its totals over every day since, and it clears once it is
 * no longer new.
 */
import { afterEach, expect, test } from "bun:test";
import { and, eq } from "drizzle-orm";
import { reverseDnsSettled } from "../../src/features/reports/reverse-dns";
import { makeTestApp, type TestApp } from "../support/app";
import { signedInMember, type SignedIn } from "../support/fixtures";
import type { GeneratedAggregate } from "../../src/lib/reports/generate";
import { sampleAggregate, xmlBytes } from "../support/report-fixtures";

let t: TestApp;
afterEach(async () => {
  await reverseDnsSettled();
  await t?.close();
});

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

async function upload(who: SignedIn, id: string, begin: Date, records: GeneratedAggregate["records"]) {
  const form = new FormData();
  const bytes = xmlBytes(sampleAggregate("window.example", { reportId: id, begin, end: new Date(begin.getTime() + 10 * HOUR), records }));
  form.append("files", new File([bytes as Uint8Array<ArrayBuffer>], `${id}.xml`));
  const res = await t.json("POST", "/api/reports/upload", { body: form, cookie: who.cookie });
  expect(res.body.results[0].status).toBe("ingested");
}

const failing = (sourceIp: string, count: number) => ({ sourceIp, count, dkim: "fail" as const, spf: "fail" as const, spfAuth: [{ domain: "spoof.example", result: "fail" as const }] });
const passing = (sourceIp: string, count: number) => ({
  sourceIp,
  count,
  dkim: "pass" as const,
  spf: "pass" as const,
  dkimAuth: [{ domain: "window.example", selector: "s1", result: "pass" as const }],
  spfAuth: [{ domain: "window.example", result: "pass" as const }],
});

test("new failing sources: first seen within the window only, with totals since first seen", async () => {
  let clock = new Date(Date.UTC(2026, 5, 20, 12));
  t = await makeTestApp({ deps: { now: () => clock } });
  const owner = await signedInMember(t.deps.store, "owner");
  await t.deps.store.db.insert(t.deps.store.t.domains).values({ orgId: owner.orgId, name: "window.example" });
  const events = async () => {
    const { orgEvents } = t.deps.store.t;
    const rows = await t.deps.store.db.select().from(orgEvents).where(and(eq(orgEvents.orgId, owner.orgId), eq(orgEvents.type, "reports.new_failing_source")));
    return rows.map((e) => JSON.parse(e.data) as { sourceIp: string; failedMessages: number; messages: number }).sort((a, b) => a.sourceIp.localeCompare(b.sourceIp));
  };
  const dayStart = (daysAgo: number) => new Date(Date.UTC(clock.getUTCFullYear(), clock.getUTCMonth(), clock.getUTCDate()) - daysAgo * DAY);

  // three days ago: 198.51.100.1 sends a little failing mail, 198.51.100.2 a lot (under the 24-hour window: not new by today)
  await upload(owner, "old", dayStart(3), [failing("198.51.100.1", 2), passing("192.0.2.10", 50), failing("198.51.100.2", 3)]);
  expect(await events()).toEqual([]);
  // today: both fail in volume, and 198.51.100.3 is seen for the first time
  await upload(owner, "today", dayStart(0), [failing("198.51.100.1", 40), failing("198.51.100.2", 40), failing("198.51.100.3", 12), passing("192.0.2.10", 50)]);
  expect((await events()).map((e) => e.sourceIp)).toEqual(["198.51.100.3"]);

  // a 5-day window: the two seen three days ago are new as well, with every message since they were first seen
  const saved = await t.json("PUT", "/api/alerts/thresholds", { cookie: owner.cookie, body: { newSourceWindowHours: 120 } });
  expect(saved.status).toBe(200);
  clock = new Date(clock.getTime() + HOUR);
  await upload(owner, "later", dayStart(0), [failing("198.51.100.4", 5), passing("192.0.2.10", 50)]);
  expect(await events()).toEqual([
    expect.objectContaining({ sourceIp: "198.51.100.1", failedMessages: 42, messages: 42 }),
    expect.objectContaining({ sourceIp: "198.51.100.2", failedMessages: 43, messages: 43 }),
    expect.objectContaining({ sourceIp: "198.51.100.3", failedMessages: 12, messages: 12 }),
  ]);
});
