/**
 * Dashboard stats, derived tasks, IP threats and settings, against real rows: domains with
 * DNS statuses and history, and aggregate reports ingested through the real ingestion path.
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { strToU8 } from "fflate";
import { domainRecordHistory, domains } from "../../src/db/schema";
import { ingestFile } from "../../src/features/reports/ingest";
import { reverseDnsSettled } from "../../src/features/reports/reverse-dns";
import { aggregateXml, type GeneratedAggregate, type GeneratedRecord } from "../../src/lib/reports/generate";
import { makeTestApp, type TestApp } from "../support/app";
import { addMember, createUser, signedInMember, signIn, type SignedIn } from "../support/fixtures";

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const NOW = new Date(Math.floor(Date.now() / 1000) * 1000);
const ago = (ms: number) => new Date(NOW.getTime() - ms);

/** Reverse DNS stand-in: SendGrid's relay has a PTR, everything else has none. */
const reverse = async (ip: string) => (ip === "167.89.1.1" ? ["o1.ptr1234.sendgrid.net"] : []);

let t: TestApp;
let owner: SignedIn;
let seq = 0;

beforeEach(async () => {
  t = await makeTestApp({ deps: { now: () => NOW, resolver: { reverse } as never } });
  owner = await signedInMember(t.deps.store, "owner", "Acme Dental");
});
afterEach(() => t.close());

async function addDomain(orgId: string, name: string, status: { dmarc: string; spf: string; dkim: string; overall?: string; record?: string | null }, createdAt = ago(60 * DAY)) {
  const db = t.deps.store.db;
  const [row] = await db
    .insert(domains)
    .values({ orgId, name, dmarcPolicy: status.dmarc, spfStatus: status.spf, dkimStatus: status.dkim, overallStatus: status.overall ?? "partial", createdAt, lastCheckedAt: ago(HOUR) })
    .returning({ id: domains.id });
  const id = row!.id;
  const record = status.record === undefined ? (status.dmarc === "missing" ? null : `v=DMARC1; p=${status.dmarc}; rua=mailto:dmarc@${name}`) : status.record;
  await db
    .insert(domainRecordHistory)
    .values({ orgId, domainId: id, checkedAt: ago(10 * DAY), dmarcRecord: record, spfRecord: "v=spf1 -all", dkimRecord: null, dmarcPolicy: status.dmarc, spfStatus: status.spf, dkimStatus: status.dkim, overallStatus: status.overall ?? "partial" });
  return id;
}

async function ingest(orgId: string, domain: string, records: GeneratedRecord[], begin: Date, end: Date, p = "none") {
  const report: GeneratedAggregate = { orgName: "google.com", reportId: `r-${++seq}`, begin, end, domain, p, records };
  const result = await ingestFile(t.deps, { orgId, fileName: `r${seq}.xml`, bytes: strToU8(aggregateXml(report)), source: "upload" });
  expect(result.status).toBe("ingested");
  await reverseDnsSettled();
}

const pass = (ip: string, count: number): GeneratedRecord => ({ sourceIp: ip, count, dkim: "pass", spf: "pass" });
const fail = (ip: string, count: number, disposition = "none"): GeneratedRecord => ({ sourceIp: ip, count, dkim: "fail", spf: "fail", disposition });

describe("GET /api/dashboard/stats", () => {
  test("an organization without anything has zeros and +0 changes", async () => {
    const res = await t.json("GET", "/api/dashboard/stats", { cookie: owner.cookie });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ totalDomains: 0, dmarcProtected: 0, protectionRate: 0, domainGrowth: "+0", activeIssues: 0, issueChange: "+0", reportsProcessed: 0, reportGrowth: "+0%" });
  });

  test("counts domains, enforced DMARC, issues and reports of the last 30 days", async () => {
    await addDomain(owner.orgId, "protected.example", { dmarc: "reject", spf: "valid", dkim: "valid", overall: "protected" });
    await addDomain(owner.orgId, "quarantined.example", { dmarc: "quarantine", spf: "valid", dkim: "valid", overall: "protected" }, ago(5 * DAY));
    await addDomain(owner.orgId, "open.example", { dmarc: "missing", spf: "missing", dkim: "missing", overall: "vulnerable" }, ago(2 * DAY));
    await ingest(owner.orgId, "protected.example", [pass("209.85.220.41", 900), fail("203.0.113.9", 100, "reject")], ago(DAY + 2 * HOUR), ago(2 * HOUR), "reject");

    const { body } = await t.json("GET", "/api/dashboard/stats", { cookie: owner.cookie });
    expect(body.totalDomains).toBe(3);
    expect(body.dmarcProtected).toBe(2);
    expect(body.protectionRate).toBe(67);
    expect(body.domainGrowth).toBe("+2");
    expect(body.reportsProcessed).toBe(1);
    expect(body.reportGrowth).toBe("+100%");
    expect(body.messagesLast30Days).toBe(1000);
    expect(body.passRateLast30Days).toBe(90);
    const tasks = (await t.json("GET", "/api/tasks", { cookie: owner.cookie })).body;
    expect(body.activeIssues).toBe(tasks.length);
    expect(body.activeIssues).toBeGreaterThan(0);
    // 30 days ago none of the newer domains existed and the old one had only its low-priority task
    expect(body.issueChange).toMatch(/^\+\d+$/);
    expect(Number(body.issueChange)).toBeGreaterThan(0);
  });
});

describe("GET /api/tasks", () => {
  test("derives a task with a plain-words fix for each DNS problem, most urgent first", async () => {
    await addDomain(owner.orgId, "nodmarc.example", { dmarc: "missing", spf: "too many lookups", dkim: "weak key" });
    await addDomain(owner.orgId, "good.example", { dmarc: "reject", spf: "valid", dkim: "valid", overall: "protected" });
    const { status, body } = await t.json("GET", "/api/tasks", { cookie: owner.cookie });
    expect(status).toBe(200);
    const titles = body.map((x: any) => x.title);
    expect(titles).toContain("Publish a DMARC record for nodmarc.example");
    expect(titles).toContain("Cut the SPF DNS lookups of nodmarc.example to 10 or fewer");
    expect(titles).toContain("Replace the weak DKIM key of nodmarc.example");
    const dmarc = body.find((x: any) => x.title.startsWith("Publish a DMARC"));
    expect(dmarc.priority).toBe("high");
    expect(dmarc.description).toContain("_dmarc.nodmarc.example");
    expect(dmarc.description).toContain("v=DMARC1; p=none");
    expect(new Date(dmarc.createdAt).getTime()).toBe(ago(10 * DAY).getTime());
    for (const task of body) expect(Object.keys(task)).toEqual(expect.arrayContaining(["id", "title", "description", "priority", "createdAt"]));
    const ranks = body.map((x: any) => ({ high: 0, medium: 1, low: 2 })[x.priority as "high"]);
    expect(ranks).toEqual([...ranks].sort());
    // a fully protected domain with reports flowing has nothing to do
    expect(body.some((x: any) => x.domain === "good.example" && x.category !== "reports")).toBe(false);
  });

  test("reports: a named service failing DMARC, spoofing under p=none, and no reports arriving", async () => {
    await addDomain(owner.orgId, "shop.example", { dmarc: "none", spf: "valid", dkim: "valid" });
    await addDomain(owner.orgId, "quiet.example", { dmarc: "reject", spf: "valid", dkim: "valid", overall: "protected" });
    await ingest(owner.orgId, "shop.example", [pass("209.85.220.41", 500), fail("167.89.1.1", 40), fail("198.51.100.7", 30)], ago(2 * DAY), ago(DAY));

    const body = (await t.json("GET", "/api/tasks", { cookie: owner.cookie })).body as any[];
    const sendgrid = body.find((x) => x.title === "Authenticate Twilio SendGrid for shop.example");
    expect(sendgrid).toBeDefined();
    expect(sendgrid.description).toContain("40 messages");
    expect(sendgrid.priority).toBe("medium");
    const none = body.find((x) => x.title === "Move shop.example from p=none to quarantine");
    expect(none.priority).toBe("high"); // 30 spoofed messages reached inboxes
    expect(none.description).toContain("30 messages from 1 unrecognised source failed DMARC and reached inboxes");
    const quiet = body.find((x) => x.domain === "quiet.example");
    expect(quiet.title).toBe("No DMARC reports received yet for quiet.example");
    expect(body.some((x) => x.domain === "shop.example" && x.category === "reports")).toBe(false);
  });

  test("signed out is 401; another organization's domains never show", async () => {
    expect((await t.json("GET", "/api/tasks")).status).toBe(401);
    const other = await signedInMember(t.deps.store, "owner");
    await addDomain(other.orgId, "theirs.example", { dmarc: "missing", spf: "missing", dkim: "missing" });
    expect((await t.json("GET", "/api/tasks", { cookie: owner.cookie })).body).toEqual([]);
    expect((await t.json("GET", "/api/tasks", { cookie: other.cookie })).body.length).toBeGreaterThan(0);
  });
});

describe("GET /api/ip-threats", () => {
  test("lists sources failing DMARC in the last 24 hours with summed attempts and a threat level", async () => {
    await addDomain(owner.orgId, "acme.example", { dmarc: "quarantine", spf: "valid", dkim: "valid" });
    await ingest(owner.orgId, "acme.example", [pass("209.85.220.41", 1000), fail("203.0.113.9", 80, "quarantine"), fail("198.51.100.7", 5, "none"), fail("192.0.2.1", 3, "quarantine"), fail("167.89.1.1", 150, "quarantine")], ago(DAY + HOUR), ago(HOUR), "quarantine");
    await ingest(owner.orgId, "acme.example", [fail("203.0.113.9", 40, "quarantine")], ago(20 * HOUR), ago(2 * HOUR), "quarantine");
    // a week-old report: not in the last 24 hours
    await ingest(owner.orgId, "acme.example", [fail("100.64.0.1", 5000)], ago(8 * DAY), ago(7 * DAY), "quarantine");

    const { status, body } = await t.json("GET", "/api/ip-threats", { cookie: owner.cookie });
    expect(status).toBe(200);
    const byIp = Object.fromEntries(body.map((x: any) => [x.ipAddress, x]));
    expect(Object.keys(byIp).sort()).toEqual(["167.89.1.1", "192.0.2.1", "198.51.100.7", "203.0.113.9"]);
    expect(byIp["203.0.113.9"]).toMatchObject({ attemptCount: 120, threatLevel: "high", domains: ["acme.example"] });
    expect(byIp["198.51.100.7"]).toMatchObject({ attemptCount: 5, threatLevel: "medium" }); // delivered
    expect(byIp["192.0.2.1"]).toMatchObject({ attemptCount: 3, threatLevel: "low" });
    expect(byIp["167.89.1.1"]).toMatchObject({ attemptCount: 150, threatLevel: "medium", service: "Twilio SendGrid" }); // a known service: one level lower
    for (const x of body) {
      expect(typeof x.country).toBe("string");
      expect(typeof x.city).toBe("string");
      expect(new Date(x.lastSeenAt).getTime()).toBeLessThanOrEqual(NOW.getTime());
    }
    expect(byIp["203.0.113.9"].lastSeenAt).toBe(ago(HOUR).toISOString());
  });

  test("another organization's failing sources never appear; viewers may read", async () => {
    const other = await signedInMember(t.deps.store, "owner");
    await addDomain(other.orgId, "theirs.example", { dmarc: "none", spf: "valid", dkim: "valid" });
    await ingest(other.orgId, "theirs.example", [fail("203.0.113.50", 500)], ago(DAY), ago(HOUR));
    const viewer = await createUser(t.deps.store);
    await addMember(t.deps.store, owner.orgId, viewer, "viewer");
    const res = await t.json("GET", "/api/ip-threats", { cookie: await signIn(t.deps.store, viewer, owner.orgId) });
    expect(res.status).toBe(200);
    expect(res.body).toEqual([]);
    expect((await t.json("GET", "/api/ip-threats", { cookie: other.cookie })).body.map((x: any) => x.ipAddress)).toEqual(["203.0.113.50"]);
    expect((await t.json("GET", "/api/ip-threats")).status).toBe(401);
    expect((await t.json("GET", "/api/dashboard/stats")).status).toBe(401);
  });
});

describe("GET/PUT /api/settings", () => {
  const valid = {
    organizationName: "Acme Dental Group",
    contactEmail: "it@acme.example",
    emailNotifications: false,
    dmarcRua: "mailto:dmarc@acme.example",
    dmarcRuf: "",
    autoProcessReports: true,
    dnsCaching: true,
    cacheTtlSeconds: 7200,
    realtimeThreatMonitoring: false,
    complianceAlerts: true,
  };

  test("defaults before anything is saved: the organization's name and owner, 3600 s TTL, toggles on", async () => {
    const { status, body } = await t.json("GET", "/api/settings", { cookie: owner.cookie });
    expect(status).toBe(200);
    expect(body).toMatchObject({ organizationName: "Acme Dental", cacheTtlSeconds: 3600, emailNotifications: true, dnsCaching: true, dmarcRua: "", canEdit: true, updatedAt: null });
    expect(body.contactEmail).toContain("@");
  });

  test("an owner saves and reads back; the mailto: prefix is dropped", async () => {
    const put = await t.json("PUT", "/api/settings", { cookie: owner.cookie, body: valid });
    expect(put.status).toBe(200);
    const { body } = await t.json("GET", "/api/settings", { cookie: owner.cookie });
    expect(body).toMatchObject({ ...valid, dmarcRua: "dmarc@acme.example" });
    expect(body.updatedAt).toBe(NOW.toISOString());
    // the saved rua is what tasks suggest
    await addDomain(owner.orgId, "acme.example", { dmarc: "missing", spf: "valid", dkim: "valid" });
    const tasks = (await t.json("GET", "/api/tasks", { cookie: owner.cookie })).body as any[];
    expect(tasks[0].description).toContain("rua=mailto:dmarc@acme.example");
  });

  test.each([
    [{ cacheTtlSeconds: 30 }, "cacheTtlSeconds", "Enter a cache TTL from 60 to 86400 seconds"],
    [{ cacheTtlSeconds: 90_000 }, "cacheTtlSeconds", "Enter a cache TTL from 60 to 86400 seconds"],
    [{ cacheTtlSeconds: "3600" }, "cacheTtlSeconds", "Enter a cache TTL from 60 to 86400 seconds"],
    [{ organizationName: "A" }, "organizationName", "Organization name must be at least 2 characters"],
    [{ contactEmail: "not-an-email" }, "contactEmail", "Please enter a valid email address"],
    [{ dmarcRua: "dmarc at acme" }, "dmarcRua", "Enter the aggregate report (rua) address as an email, e.g. dmarc@example.com"],
    [{ emailNotifications: "yes" }, "emailNotifications", undefined],
  ])("bad input %p is a 400 naming the field", async (patch, field, message) => {
    const res = await t.json("PUT", "/api/settings", { cookie: owner.cookie, body: { ...valid, ...patch } });
    expect(res.status).toBe(400);
    expect(res.body.error.fields[field]).toBeDefined();
    if (message) expect(res.body.error.fields[field]).toBe(message);
  });

  test.each(["viewer", "member"] as const)("a %s reads (canEdit false) but may not save", async (role) => {
    const userId = await createUser(t.deps.store);
    await addMember(t.deps.store, owner.orgId, userId, role);
    const cookie = await signIn(t.deps.store, userId, owner.orgId);
    expect((await t.json("GET", "/api/settings", { cookie })).body.canEdit).toBe(false);
    expect((await t.json("PUT", "/api/settings", { cookie, body: valid })).status).toBe(403);
    expect((await t.json("GET", "/api/settings", { cookie: owner.cookie })).body.updatedAt).toBeNull();
  });

  test("an admin saves; each organization has its own settings; signed out is 401", async () => {
    const userId = await createUser(t.deps.store);
    await addMember(t.deps.store, owner.orgId, userId, "admin");
    expect((await t.json("PUT", "/api/settings", { cookie: await signIn(t.deps.store, userId, owner.orgId), body: valid })).status).toBe(200);
    const other = await signedInMember(t.deps.store, "owner", "Other Org");
    expect((await t.json("GET", "/api/settings", { cookie: other.cookie })).body.organizationName).toBe("Other Org");
    expect((await t.json("GET", "/api/settings")).status).toBe(401);
    expect((await t.json("PUT", "/api/settings", { body: valid })).status).toBe(401);
  });
});
