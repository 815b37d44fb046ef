/**
 * Report events through the real upload path and the roll-ups: a new source failing DMARC in
 * volume, a low pass rate, a failure report, and reports that stopped arriving (the hourly job)
 * — each once per cause.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { checkReportsStopped } from "../../src/features/alerts/report-events";
import { makeTestApp, type TestApp } from "../support/app";
import { signedInMember, type SignedIn } from "../support/fixtures";
import { fixture, sampleAggregate, xmlBytes } from "../support/report-fixtures";
import { reverseDnsSettled } from "../../src/features/reports/reverse-dns";

let t: TestApp;
const tables = () => t.deps.store.t;
let clock = new Date();
afterEach(async () => {
  await reverseDnsSettled();
  await t?.close();
});

const HOUR = 3_600_000;

async function upload(who: SignedIn, name: string, bytes: Uint8Array) {
  const form = new FormData();
  form.append("files", new File([bytes as Uint8Array<ArrayBuffer>], name));
  const res = await t.json("POST", "/api/reports/upload", { body: form, cookie: who.cookie });
  expect(res.body.results[0].status).toBe("ingested");
}

const typesOf = async (orgId: string) => (await t.deps.store.db.select().from(tables().orgEvents).where(eq(tables().orgEvents.orgId, orgId))).map((e) => e.type).sort();

describe("report events", () => {
  test("a new failing source and a low pass rate alert once; the same figures again do not", async () => {
    clock = new Date();
    t = await makeTestApp({ deps: { now: () => clock } });
    const owner = await signedInMember(t.deps.store, "owner");
    await t.deps.store.db.insert(tables().domains).values({ orgId: owner.orgId, name: "example.com" });
    const begin = new Date(clock.getTime() - 20 * HOUR);
    const report = (id: string) =>
      sampleAggregate("example.com", {
        reportId: id,
        begin,
        end: new Date(begin.getTime() + 10 * HOUR),
        records: [
          { sourceIp: "209.85.220.41", count: 40, dkim: "pass", spf: "pass", dkimAuth: [{ domain: "example.com", selector: "s1", result: "pass" }], spfAuth: [{ domain: "example.com", result: "pass" }] },
          { sourceIp: "198.51.100.7", count: 25, dkim: "fail", spf: "fail", spfAuth: [{ domain: "spoof.example", result: "fail" }] },
        ],
      });
    await upload(owner, "a.xml", xmlBytes(report("r1")));
    expect(await typesOf(owner.orgId)).toEqual(["reports.new_failing_source", "reports.pass_rate_low"]);
    const [source] = (await t.deps.store.db.select().from(tables().orgEvents).where(eq(tables().orgEvents.type, "reports.new_failing_source"))).filter((e) => e.orgId === owner.orgId);
    expect(JSON.parse(source!.data)).toMatchObject({ sourceIp: "198.51.100.7", failedMessages: 25 });
    await upload(owner, "b.xml", xmlBytes(report("r2")));
    expect((await typesOf(owner.orgId)).length).toBe(2);
  });

  test("a failure report is an event; reports stopped for 72 hours is one, cleared by the next report", async () => {
    clock = new Date();
    t = await makeTestApp({ deps: { now: () => clock } });
    const owner = await signedInMember(t.deps.store, "owner");
    await t.deps.store.db.insert(tables().domains).values({ orgId: owner.orgId, name: "example.com" });
    await upload(owner, "arf.eml", fixture("arf-auth-failure.eml"));
    expect(await typesOf(owner.orgId)).toEqual(["reports.failure_report"]);

    const [domain] = await t.deps.store.db.select().from(tables().domains).where(eq(tables().domains.orgId, owner.orgId));
    await t.deps.store.db.update(tables().domains).set({ lastReportAt: new Date(clock.getTime() - 10 * HOUR) }).where(eq(tables().domains.id, domain!.id));
    expect(await checkReportsStopped(t.deps)).toBe(0);
    clock = new Date(clock.getTime() + 63 * HOUR);
    await checkReportsStopped(t.deps);
    expect((await typesOf(owner.orgId)).filter((x) => x === "reports.stopped").length).toBe(1);
    clock = new Date(clock.getTime() + 5 * HOUR);
    await checkReportsStopped(t.deps);
    expect((await typesOf(owner.orgId)).filter((x) => x === "reports.stopped").length).toBe(1);
    // a report arrives: cleared; silent again later: a new event
    const begin = new Date(clock.getTime() - 5 * HOUR);
    await upload(owner, "c.xml", xmlBytes(sampleAggregate("example.com", { begin, end: new Date(begin.getTime() + HOUR) })));
    clock = new Date(clock.getTime() + 80 * HOUR);
    await checkReportsStopped(t.deps);
    expect((await typesOf(owner.orgId)).filter((x) => x === "reports.stopped").length).toBe(2);
  });
});
