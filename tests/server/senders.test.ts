/**
 * The sender page (GET /api/senders/:key), the marks (PUT /api/senders/:key/mark) and what a
 * mark changes (the Senders verdict, the threat list, the tasks), and the threat map's
 * countries (GET /api/threats/countries), against reports ingested through the real path.
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { strToU8 } from "fflate";
import { domains } from "../../src/db/schema";
import { ingestFile } from "../../src/features/reports/ingest";
import { reverseDnsSettled } from "../../src/features/reports/reverse-dns";
import { aggregateXml, type GeneratedAggregate, type GeneratedRecord } from "../../src/lib/reports/generate";
import { makeTestApp, type TestApp } from "../support/app";
import { addMember, createUser, signedInMember, signIn, type SignedIn } from "../support/fixtures";

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
// noon UTC, so "yesterday" and "today" are whole days away from the reports below
const NOW = new Date(Math.floor(Date.now() / DAY) * DAY + 12 * HOUR);
const ago = (ms: number) => new Date(NOW.getTime() - ms);
const dayOf = (d: Date) => d.toISOString().slice(0, 10);

/** Reverse DNS stand-in: SendGrid's relays and one mail server have names, the rest none. */
const reverse = async (ip: string) => (ip.startsWith("167.89.") ? [`o1.ptr${ip.split(".").pop()}.sendgrid.net`] : ip === "81.2.69.160" ? ["mx.partner-mail.example"] : []);

let t: TestApp;
let owner: SignedIn;
let seq = 0;

beforeEach(async () => {
  t = await makeTestApp({ deps: { now: () => NOW, resolver: { reverse } as never } });
  owner = await signedInMember(t.deps.store, "owner", "Acme Dental");
  await t.deps.store.db.insert(domains).values({ orgId: owner.orgId, name: "shop.example", dmarcPolicy: "none", spfStatus: "valid", dkimStatus: "valid", overallStatus: "partial", createdAt: ago(30 * DAY) });
});
afterEach(() => t.close());

async function ingest(records: GeneratedRecord[], begin: Date, end = new Date(begin.getTime() + DAY - 1000)) {
  const report: GeneratedAggregate = { orgName: "google.com", reportId: `r-${++seq}`, begin, end, domain: "shop.example", p: "none", records };
  const result = await ingestFile(t.deps, { orgId: owner.orgId, fileName: `r${seq}.xml`, bytes: strToU8(aggregateXml(report)), source: "upload" });
  expect(result.status).toBe("ingested");
  await reverseDnsSettled();
}

const pass = (ip: string, count: number): GeneratedRecord => ({ sourceIp: ip, count, dkim: "pass", spf: "pass" });
const fail = (ip: string, count: number, disposition = "none"): GeneratedRecord => ({ sourceIp: ip, count, dkim: "fail", spf: "fail", disposition });

const SENDGRID = "service:Twilio SendGrid";
const path = (key: string) => `/api/senders/${encodeURIComponent(key)}`;

/** SendGrid: 2 IPs over two days, partly failing; an unknown server failing; a named server failing. */
async function seed() {
  await ingest([pass("167.89.1.1", 60), fail("167.89.1.2", 40), fail("203.0.113.9", 150)], ago(DAY + 12 * HOUR));
  await ingest(
    [
      { ...pass("167.89.1.1", 30), dkimAuth: [{ domain: "shop.example", selector: "s1", result: "pass" }], spfAuth: [{ domain: "sendgrid.net", scope: "mfrom", result: "pass" }] },
      fail("81.2.69.160", 25),
    ],
    ago(12 * HOUR),
  );
}

describe("GET /api/senders/:key", () => {
  test("a service: its IPs with PTR, messages and alignment, the daily trend from the roll-ups, recent records, the verdict and the fix", async () => {
    await seed();
    const list = (await t.json("GET", "/api/senders?days=7", { cookie: owner.cookie })).body as any[];
    const row = list.find((s) => s.key === SENDGRID);
    expect(row).toMatchObject({ sender: "Twilio SendGrid", kind: "service", mark: null, messages: 130, verdict: "partly" });

    const res = await t.json("GET", `${path(SENDGRID)}?days=7`, { cookie: owner.cookie });
    expect(res.status).toBe(200);
    const d = res.body;
    expect(d).toMatchObject({ key: SENDGRID, kind: "service", sender: "Twilio SendGrid", days: 7, to: dayOf(NOW), from: dayOf(ago(6 * DAY)), mark: null, markedAt: null, ipCount: 2 });
    expect(d.summary).toMatchObject({ key: SENDGRID, messages: 130, passRate: 69.2, spfAlignedRate: 69.2, dkimAlignedRate: 69.2, verdict: "partly", domains: ["shop.example"] });
    expect(d.ips).toEqual([
      expect.objectContaining({ ip: "167.89.1.1", ptr: "o1.ptr1.sendgrid.net", messages: 90, passRate: 100, spfAlignedRate: 100, dkimAlignedRate: 100 }),
      expect.objectContaining({ ip: "167.89.1.2", ptr: "o1.ptr2.sendgrid.net", messages: 40, passRate: 0, spfAlignedRate: 0, dkimAlignedRate: 0 }),
    ]);
    // the trend: every day of the period, the sender's mail on the day its report began
    expect(d.trend.days).toHaveLength(7);
    const byDate = Object.fromEntries(d.trend.days.map((x: any) => [x.date, x]));
    expect(byDate[dayOf(ago(DAY))]).toEqual({ date: dayOf(ago(DAY)), messages: 100, passed: 60, failed: 40, quarantined: 0, rejected: 0, spfAligned: 60, dkimAligned: 60 });
    expect(byDate[dayOf(NOW)]).toMatchObject({ messages: 30, passed: 30, failed: 0 });
    expect(d.trend.days.reduce((s: number, x: any) => s + x.messages, 0)).toBe(130);
    // recent records, newest first, with their auth results and report
    expect(d.samples.length).toBe(3);
    expect(d.samples[0]).toMatchObject({ sourceIp: "167.89.1.1", count: 30, reporter: "google.com", policyDomain: "shop.example", dmarcPass: true });
    expect(d.samples[0].dkimResults).toEqual([expect.objectContaining({ domain: "shop.example", selector: "s1", result: "pass" })]);
    expect(d.samples[0].spfResults).toEqual([expect.objectContaining({ domain: "sendgrid.net", scope: "mfrom", result: "pass" })]);
    expect(d.samples.map((x: any) => x.sourceIp)).toEqual(["167.89.1.1", expect.any(String), expect.any(String)]);
  });

  test("a server without reverse DNS is its IP; a base domain in any case is the same sender", async () => {
    await seed();
    const ip = (await t.json("GET", path("ip:203.0.113.9"), { cookie: owner.cookie })).body;
    expect(ip.summary).toMatchObject({ kind: "ip", messages: 150, passRate: 0, verdict: "failing" });
    expect(ip.ips).toEqual([expect.objectContaining({ ip: "203.0.113.9", ptr: null, messages: 150 })]);
    const domain = (await t.json("GET", path("domain:Partner-Mail.EXAMPLE"), { cookie: owner.cookie })).body;
    expect(domain).toMatchObject({ key: "domain:partner-mail.example", summary: { messages: 25 } });
  });

  test("a sender with no mail in the period answers with an empty page; a malformed key or period is a 400 that says why", async () => {
    await seed();
    const none = await t.json("GET", path("service:Nobody"), { cookie: owner.cookie });
    expect(none.status).toBe(200);
    expect(none.body).toMatchObject({ summary: null, ips: [], samples: [], ipCount: 0 });
    expect(none.body.trend.days).toHaveLength(30);
    const bad = await t.json("GET", path("Google"), { cookie: owner.cookie });
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toContain('"service:<name>"');
    expect((await t.json("GET", path("ip:not-an-address"), { cookie: owner.cookie })).status).toBe(400);
    const days = await t.json("GET", `${path(SENDGRID)}?days=0`, { cookie: owner.cookie });
    expect(days.status).toBe(400);
    expect(days.body.error.message).toContain("days must be a whole number from 1 to 365");
  });
});

describe("PUT /api/senders/:key/mark", () => {
  test("admins and owners may mark; members and viewers get 403; a bad verdict is a 400", async () => {
    const cookieOf = async (role: "admin" | "member" | "viewer") => {
      const id = await createUser(t.deps.store, `${role}@acme.test`);
      await addMember(t.deps.store, owner.orgId, id, role);
      return await signIn(t.deps.store, id, owner.orgId);
    };
    expect((await t.json("PUT", `${path(SENDGRID)}/mark`, { cookie: await cookieOf("viewer"), body: { verdict: "approved" } })).status).toBe(403);
    expect((await t.json("PUT", `${path(SENDGRID)}/mark`, { cookie: await cookieOf("member"), body: { verdict: "approved" } })).status).toBe(403);
    const ok = await t.json("PUT", `${path(SENDGRID)}/mark`, { cookie: await cookieOf("admin"), body: { verdict: "approved" } });
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual({ key: SENDGRID, mark: "approved" });
    const bad = await t.json("PUT", `${path(SENDGRID)}/mark`, { cookie: owner.cookie, body: { verdict: "maybe" } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toContain('verdict must be "approved", "not_ours" or null');
    expect((await t.json("PUT", `${path("nonsense")}/mark`, { cookie: owner.cookie, body: { verdict: "approved" } })).status).toBe(400);
  });

  test("approving a failing server: its verdict becomes a set-up job, it leaves the threat list and gets a set-up task; removing the mark undoes it", async () => {
    await seed();
    const threatIps = async () => ((await t.json("GET", "/api/ip-threats", { cookie: owner.cookie })).body as any[]).map((x) => x.ipAddress).sort();
    const verdictOf = async (key: string) => ((await t.json("GET", "/api/senders?days=7", { cookie: owner.cookie })).body as any[]).find((s) => s.key === key);
    const taskTitles = async () => ((await t.json("GET", "/api/tasks", { cookie: owner.cookie })).body as any[]).map((x) => x.title);

    expect(await threatIps()).toEqual(["167.89.1.2", "203.0.113.9", "81.2.69.160"]);
    expect(await verdictOf("domain:partner-mail.example")).toMatchObject({ verdict: "failing", mark: null });
    expect(await taskTitles()).not.toContain("Authenticate partner-mail.example for shop.example");

    const res = await t.json("PUT", `${path("domain:partner-mail.example")}/mark`, { cookie: owner.cookie, body: { verdict: "approved" } });
    expect(res.status).toBe(200);
    expect(await verdictOf("domain:partner-mail.example")).toMatchObject({ verdict: "setup", mark: "approved" });
    expect(await threatIps()).toEqual(["167.89.1.2", "203.0.113.9"]);
    const tasks = (await t.json("GET", "/api/tasks", { cookie: owner.cookie })).body as any[];
    const setup = tasks.find((x) => x.title === "Authenticate partner-mail.example for shop.example");
    expect(setup).toMatchObject({ category: "senders", priority: "medium" });
    expect(setup.description).toContain("You marked it as yours");
    const page = (await t.json("GET", path("domain:partner-mail.example"), { cookie: owner.cookie })).body;
    expect(page.mark).toBe("approved");
    expect(page.markedAt).toBe(NOW.toISOString());

    await t.json("PUT", `${path("domain:partner-mail.example")}/mark`, { cookie: owner.cookie, body: { verdict: null } });
    expect(await verdictOf("domain:partner-mail.example")).toMatchObject({ verdict: "failing", mark: null });
    expect(await threatIps()).toEqual(["167.89.1.2", "203.0.113.9", "81.2.69.160"]);
  });

  test("a known service marked not ours is spoofing: its verdict, no known-service discount on its threat level, no set-up task", async () => {
    await seed();
    const sendgridThreat = async () => ((await t.json("GET", "/api/ip-threats", { cookie: owner.cookie })).body as any[]).find((x) => x.ipAddress === "167.89.1.2");
    // 40 failing messages delivered: medium, one level lower for a known service
    expect((await sendgridThreat()).threatLevel).toBe("medium");
    expect(((await t.json("GET", "/api/tasks", { cookie: owner.cookie })).body as any[]).map((x) => x.title)).toContain("Authenticate Twilio SendGrid for shop.example");

    await t.json("PUT", `${path(SENDGRID)}/mark`, { cookie: owner.cookie, body: { verdict: "not_ours" } });
    const row = ((await t.json("GET", "/api/senders?days=7", { cookie: owner.cookie })).body as any[]).find((s) => s.key === SENDGRID);
    expect(row).toMatchObject({ verdict: "spoofing", mark: "not_ours" });
    expect((await sendgridThreat()).threatLevel).toBe("high");
    expect(((await t.json("GET", "/api/tasks", { cookie: owner.cookie })).body as any[]).map((x) => x.title)).not.toContain("Authenticate Twilio SendGrid for shop.example");
  });

  test("another organization's mark changes nothing here", async () => {
    await seed();
    const other = await signedInMember(t.deps.store, "owner", "Other Org");
    expect((await t.json("PUT", `${path("ip:203.0.113.9")}/mark`, { cookie: other.cookie, body: { verdict: "approved" } })).status).toBe(200);
    const row = ((await t.json("GET", "/api/senders?days=7", { cookie: owner.cookie })).body as any[]).find((s) => s.key === "ip:203.0.113.9");
    expect(row).toMatchObject({ verdict: "failing", mark: null });
  });
});

describe("GET /api/threats/countries", () => {
  test("failing messages by country from the roll-ups: 24h reads today and yesterday, 7d and 30d their days; a bad range is a 400", async () => {
    await seed();
    await ingest([fail("81.2.69.160", 7)], ago(10 * DAY));
    const { aggregateRecords } = t.deps.store.t;
    const located = new Map((await t.deps.store.db.select().from(aggregateRecords)).map((r) => [r.sourceIp, r.country]));
    const expected = (entries: [string, number][]) => {
      const out: Record<string, number> = {};
      let unlocated = 0;
      for (const [ip, n] of entries) {
        const c = located.get(ip);
        if (c) out[c] = (out[c] ?? 0) + n;
        else unlocated += n;
      }
      return { counts: out, unlocated };
    };
    const day = await t.json("GET", "/api/threats/countries", { cookie: owner.cookie });
    expect(day.status).toBe(200);
    expect(day.body).toEqual({ range: "24h", from: dayOf(ago(DAY)), to: dayOf(NOW), ...expected([["167.89.1.2", 40], ["203.0.113.9", 150], ["81.2.69.160", 25]]) });
    expect(Object.keys(day.body.counts).length).toBeGreaterThan(0);
    const week = await t.json("GET", "/api/threats/countries?range=7d", { cookie: owner.cookie });
    expect(week.body).toMatchObject({ range: "7d", from: dayOf(ago(6 * DAY)), ...expected([["167.89.1.2", 40], ["203.0.113.9", 150], ["81.2.69.160", 25]]) });
    const month = await t.json("GET", "/api/threats/countries?range=30d", { cookie: owner.cookie });
    expect(month.body).toMatchObject({ range: "30d", ...expected([["167.89.1.2", 40], ["203.0.113.9", 150], ["81.2.69.160", 32]]) });
    const bad = await t.json("GET", "/api/threats/countries?range=1y", { cookie: owner.cookie });
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toContain('range must be "24h", "7d" or "30d"');
  });

  test("an organization without reports has an empty map", async () => {
    const res = await t.json("GET", "/api/threats/countries?range=30d", { cookie: owner.cookie });
    expect(res.body).toMatchObject({ counts: {}, unlocated: 0 });
  });
});
