import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import { makeTestApp, type TestApp } from "../../../tests/support/app";
import { signedInMember } from "../../../tests/support/fixtures";

const NOW = new Date("2026-03-31T12:00:00Z");
const daysAgo = (n: number) => new Date(NOW.getTime() - n * 86_400_000);

let t: TestApp;
beforeEach(async () => {
  t = await makeTestApp({ deps: { now: () => NOW } });
});
afterEach(() => t.close());

interface Rec {
  ip: string;
  count: number;
  dkim?: "pass" | "fail";
  spf?: "pass" | "fail";
  service?: string;
  serviceType?: string;
  baseDomain?: string;
  country?: string;
}

/** One aggregate report for `domain` starting `ago` days before NOW, with its records. */
async function report(orgId: string, domain: string, ago: number, records: Rec[]) {
  const db = t.deps.store.db;
  // the active store's tables, so the rows are written the way PostgreSQL takes them too
  const { aggregateRecords, aggregateReports, domains } = t.deps.store.t;
  let dom = (await db.select().from(domains)).find((d) => d.orgId === orgId && d.name === domain);
  if (!dom) dom = (await db.insert(domains).values({ orgId, name: domain }).returning())[0]!;
  const begin = daysAgo(ago);
  const messages = records.reduce((n, r) => n + r.count, 0);
  const passing = records.filter((r) => r.dkim === "pass" || r.spf === "pass").reduce((n, r) => n + r.count, 0);
  const [rep] = await db
    .insert(aggregateReports)
    // numbered as SQLite's report writer numbers them
    .values({ seq: sql`(SELECT coalesce(max(seq), 0) + 1 FROM aggregate_reports)`, orgId, domainId: dom.id, policyDomain: domain, reporterOrg: "google.com", reportId: crypto.randomUUID(), dateBegin: begin, dateEnd: new Date(begin.getTime() + 86_400_000), recordCount: records.length, messageCount: messages, passCount: passing, source: "upload" })
    .returning();
  // the roll-ups the Senders view reads, as the report writer keeps them (country and service as given here)
  const { dailySenderStats, sourceNames } = t.deps.store.t;
  for (const r of records) {
    const passed = r.dkim === "pass" || r.spf === "pass" ? r.count : 0;
    await db.insert(dailySenderStats).values({
      orgId, day: Math.floor(begin.getTime() / 86_400_000), sourceIp: r.ip, policyDomain: domain, domainId: dom.id, country: r.country ?? null, messages: r.count, passed,
      spfAligned: r.spf === "pass" ? r.count : 0, dkimAligned: r.dkim === "pass" ? r.count : 0, failedDelivered: r.count - passed,
      firstFailedAt: passed < r.count ? begin.getTime() / 1000 : null, lastFailedAt: passed < r.count ? begin.getTime() / 1000 + 86_400 : null, lastBegin: begin.getTime() / 1000,
    });
    if (r.baseDomain) {
      await db
        .insert(sourceNames)
        .values({ orgId, sourceIp: r.ip, ptr: `mx.${r.baseDomain}`, baseDomain: r.baseDomain, service: r.service ?? null, serviceType: r.serviceType ?? null })
        .onConflictDoNothing();
    }
  }
  for (const r of records) {
    await db
      .insert(aggregateRecords)
      .values({
        reportSeq: rep!.seq,
        orgId,
        sourceIp: r.ip,
        messageCount: r.count,
        disposition: "none",
        dkimAligned: r.dkim ?? "fail",
        spfAligned: r.spf ?? "fail",
        dmarcPass: r.dkim === "pass" || r.spf === "pass",
        country: r.country ?? null,
      });
  }
}

const google = { service: "Google", serviceType: "Email Provider", baseDomain: "google.com" };

describe("GET /api/senders", () => {
  test("groups by service, then base domain, then IP, with rates and verdicts, most mail first", async () => {
    const { orgId, cookie } = await signedInMember(t.deps.store, "viewer");
    await report(orgId, "example.com", 2, [
      { ip: "209.85.220.41", count: 60, dkim: "pass", spf: "pass", country: "US", ...google },
      { ip: "209.85.220.42", count: 40, dkim: "pass", spf: "fail", country: "IE", ...google },
      { ip: "198.51.100.7", count: 30, dkim: "pass", baseDomain: "mailer.example.net" },
      { ip: "198.51.100.8", count: 30, baseDomain: "mailer.example.net" },
      { ip: "203.0.113.9", count: 5 },
    ]);
    await report(orgId, "shop.example.com", 1, [{ ip: "209.85.220.41", count: 10, dkim: "pass", spf: "pass", country: "US", ...google }]);
    const res = await t.json("GET", "/api/senders", { cookie });
    expect(res.status).toBe(200);
    expect(res.body).toEqual([
      {
        key: "service:Google",
        mark: null,
        sender: "Google",
        kind: "service",
        serviceType: "Email Provider",
        messages: 110,
        passRate: 100,
        spfAlignedRate: 63.6,
        dkimAlignedRate: 100,
        ips: 2,
        domains: ["example.com", "shop.example.com"],
        countries: ["US", "IE"],
        lastSeen: daysAgo(1).toISOString(),
        verdict: "authenticated",
      },
      expect.objectContaining({ sender: "mailer.example.net", kind: "domain", messages: 60, passRate: 50, dkimAlignedRate: 50, spfAlignedRate: 0, ips: 2, verdict: "partly" }),
      expect.objectContaining({ sender: "203.0.113.9", kind: "ip", messages: 5, passRate: 0, verdict: "failing", domains: ["example.com"] }),
    ]);
  });

  test("only records in the day window count (30 days by default)", async () => {
    const { orgId, cookie } = await signedInMember(t.deps.store);
    await report(orgId, "example.com", 3, [{ ip: "192.0.2.1", count: 1, dkim: "pass" }]);
    await report(orgId, "example.com", 20, [{ ip: "192.0.2.2", count: 1, dkim: "pass" }]);
    await report(orgId, "example.com", 60, [{ ip: "192.0.2.3", count: 1, dkim: "pass" }]);
    const senders = async (q: string) => (await t.json("GET", `/api/senders${q}`, { cookie })).body.map((s: any) => s.sender).sort();
    expect(await senders("")).toEqual(["192.0.2.1", "192.0.2.2"]);
    expect(await senders("?days=7")).toEqual(["192.0.2.1"]);
    expect(await senders("?days=90")).toEqual(["192.0.2.1", "192.0.2.2", "192.0.2.3"]);
  });

  test("?domain= keeps one policy domain", async () => {
    const { orgId, cookie } = await signedInMember(t.deps.store);
    await report(orgId, "example.com", 1, [{ ip: "192.0.2.1", count: 3, dkim: "pass", ...google }]);
    await report(orgId, "other.example", 1, [{ ip: "192.0.2.9", count: 4 }]);
    const res = await t.json("GET", "/api/senders?domain=Other.Example", { cookie });
    expect(res.status).toBe(200);
    expect(res.body.map((s: any) => [s.sender, s.messages, s.domains])).toEqual([["192.0.2.9", 4, ["other.example"]]]);
    expect((await t.json("GET", "/api/senders?domain=nothing.example", { cookie })).body).toEqual([]);
  });

  test("beyond 200 senders: a service whose addresses each send little makes the list on their sum, one address a country apart stays one sender", async () => {
    const { orgId, cookie } = await signedInMember(t.deps.store);
    // 204 unrecognised servers with 10 messages each, one with 9, and Google's three addresses with 4 each
    const servers: Rec[] = Array.from({ length: 204 }, (_, i) => ({ ip: `198.51.${100 + Math.floor(i / 200)}.${i % 200}`, count: 10 }));
    await report(orgId, "example.com", 2, [...servers, { ip: "203.0.113.99", count: 9 }, ...["209.85.220.1", "209.85.220.2"].map((ip) => ({ ip, count: 4, dkim: "pass" as const, country: "US", ...google }))]);
    // the third Google address seen from another country the next day: one address, two slices
    await report(orgId, "example.com", 1, [{ ip: "209.85.220.1", count: 4, dkim: "pass", country: "IE", ...google }]);
    const res = await t.json("GET", "/api/senders", { cookie });
    expect(res.status).toBe(200);
    expect(res.body).toHaveLength(200);
    expect(res.body[0]).toMatchObject({ key: "service:Google", messages: 12, ips: 2, countries: ["US", "IE"] });
    expect(res.body.slice(1).every((s: any) => s.kind === "ip" && s.messages === 10)).toBe(true);
    expect(res.body.some((s: any) => s.sender === "203.0.113.99")).toBe(false);
  });

  test("another organization's senders never appear", async () => {
    const mine = await signedInMember(t.deps.store);
    const theirs = await signedInMember(t.deps.store);
    await report(theirs.orgId, "example.com", 1, [{ ip: "192.0.2.66", count: 100, ...google }]);
    await report(mine.orgId, "example.com", 1, [{ ip: "192.0.2.1", count: 1 }]);
    const res = await t.json("GET", "/api/senders?domain=example.com", { cookie: mine.cookie });
    expect(res.body.map((s: any) => s.sender)).toEqual(["192.0.2.1"]);
    expect((await t.json("GET", "/api/senders", { cookie: theirs.cookie })).body.map((s: any) => s.messages)).toEqual([100]);
  });

  test("days outside 1–365 is a 400 naming the field; signed out is a 401", async () => {
    const { cookie } = await signedInMember(t.deps.store);
    for (const days of ["0", "366", "abc", "1.5"]) {
      const res = await t.json("GET", `/api/senders?days=${days}`, { cookie });
      expect(res.status).toBe(400);
      expect(res.body.error.fields.days).toBe("days must be a whole number from 1 to 365");
    }
    expect((await t.json("GET", "/api/senders")).status).toBe(401);
  });
});
