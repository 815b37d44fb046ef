/**
 * The MSP portfolio (GET /api/portfolio): every client of the managing organization with the
 * figures its own dashboard shows, computed from real rows (domains, aggregate reports ingested
 * through the real ingestion path, alert events, sender marks), and who may see it.
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { strToU8 } from "fflate";
import { apiTokens, domains, orgEvents, senderMarks } from "../../src/db/schema";
import { ingestFile } from "../../src/features/reports/ingest";
import { reverseDnsSettled } from "../../src/features/reports/reverse-dns";
import { aggregateXml, type GeneratedRecord } from "../../src/lib/reports/generate";
import { hashToken } from "../../src/lib/tokens";
import { makeTestApp, type TestApp } from "../support/app";
import { addMember, createOrg, createUser, signIn, signedInMember, type SignedIn } from "../support/fixtures";

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const NOW = new Date(Math.floor(Date.now() / 1000) * 1000);
const ago = (ms: number) => new Date(NOW.getTime() - ms);

let t: TestApp;
let msp: SignedIn;
let seq = 0;

beforeEach(async () => {
  t = await makeTestApp({ deps: { now: () => NOW, resolver: { reverse: async () => [] } as never } });
  msp = await signedInMember(t.deps.store, "owner", "Northwind IT");
});
afterEach(() => t.close());

async function addDomain(orgId: string, name: string, dmarc: string, overall: string) {
  const [row] = await t.deps.store.db
    .insert(domains)
    .values({ orgId, name, dmarcPolicy: dmarc, spfStatus: "valid", dkimStatus: overall === "protected" ? "valid" : "missing", overallStatus: overall, createdAt: ago(40 * DAY), lastCheckedAt: ago(HOUR) })
    .returning({ id: domains.id });
  return row!.id;
}

async function ingest(orgId: string, domain: string, records: GeneratedRecord[], begin: Date, end: Date) {
  const xml = aggregateXml({ orgName: "google.com", reportId: `r-${++seq}`, begin, end, domain, p: "none", records });
  const result = await ingestFile(t.deps, { orgId, fileName: `r${seq}.xml`, bytes: strToU8(xml), source: "upload" });
  expect(result.status).toBe("ingested");
  await reverseDnsSettled();
}

const pass = (ip: string, count: number): GeneratedRecord => ({ sourceIp: ip, count, dkim: "pass", spf: "pass" });
const fail = (ip: string, count: number): GeneratedRecord => ({ sourceIp: ip, count, dkim: "fail", spf: "fail", disposition: "none" });

async function event(orgId: string, at: Date, type = "reports.stopped") {
  await t.deps.store.db.insert(orgEvents).values({ orgId, type, domain: "x.example", data: "{}", dedupeKey: `k-${++seq}`, occurredAt: at });
}

/** Two clients with domains, mail and alerts; a third without anything. */
async function portfolioWorld() {
  const dental = await t.json("POST", "/api/orgs/clients", { cookie: msp.cookie, body: { name: "Acme Dental" } });
  const law = await t.json("POST", "/api/orgs/clients", { cookie: msp.cookie, body: { name: "Baker Law" } });
  const empty = await t.json("POST", "/api/orgs/clients", { cookie: msp.cookie, body: { name: "Cedar Realty" } });
  const ids = { dental: dental.body.id as string, law: law.body.id as string, empty: empty.body.id as string };

  await addDomain(ids.dental, "acmedental.example", "reject", "protected");
  await addDomain(ids.dental, "acme-smile.example", "none", "vulnerable");
  await addDomain(ids.law, "bakerlaw.example", "quarantine", "partial");

  await ingest(ids.dental, "acmedental.example", [pass("209.85.220.41", 900), fail("203.0.113.9", 60), fail("198.51.100.7", 40)], ago(DAY + 2 * HOUR), ago(2 * HOUR));
  await ingest(ids.dental, "acme-smile.example", [pass("209.85.220.41", 50), fail("203.0.113.9", 50)], ago(DAY + 4 * HOUR), ago(4 * HOUR));
  await ingest(ids.law, "bakerlaw.example", [pass("40.92.1.1", 300), fail("192.0.2.55", 25)], ago(DAY + 3 * HOUR), ago(3 * HOUR));
  // a source the client approved is not counted as failing (as in its threat list)
  await t.deps.store.db.insert(senderMarks).values({ orgId: ids.dental, senderKey: "ip:198.51.100.7", verdict: "approved", markedAt: NOW } as never);

  await event(ids.dental, ago(HOUR));
  await event(ids.dental, ago(3 * DAY));
  await event(ids.dental, ago(9 * DAY));
  await event(ids.law, ago(2 * DAY));
  await event(ids.law, ago(2 * DAY), "test");
  return ids;
}

describe("GET /api/portfolio", () => {
  test("lists every client with the figures of its own dashboard", async () => {
    const ids = await portfolioWorld();
    const res = await t.json("GET", "/api/portfolio", { cookie: msp.cookie });
    expect(res.status).toBe(200);
    const clients = res.body.clients as any[];
    expect(clients.map((c) => c.name)).toEqual(["Acme Dental", "Baker Law", "Cedar Realty"]);
    for (const c of clients) {
      expect(Object.keys(c)).toEqual(expect.arrayContaining(["id", "name", "plan", "domains", "worstStatus", "passRate7d", "passRate30d", "messages7d", "failingSources7d", "openTasks", "alerts7d", "lastReportAt"]));
    }

    // the same figures the client's own screens answer, acting in the client
    let domainSum = 0;
    let messageSum = 0;
    for (const c of clients) {
      const inClient = await signIn(t.deps.store, msp.userId, c.id);
      const stats = (await t.json("GET", "/api/dashboard/stats", { cookie: inClient })).body;
      const tasks = (await t.json("GET", "/api/tasks", { cookie: inClient })).body;
      const threats = (await t.json("GET", "/api/ip-threats", { cookie: inClient })).body;
      const own = (await t.json("GET", "/api/domains", { cookie: inClient })).body as any[];
      const events = (await t.json("GET", "/api/events", { cookie: inClient })).body;
      expect(c.domains).toBe(stats.totalDomains);
      expect(c.passRate30d).toBe(stats.passRateLast30Days);
      expect(c.messages7d).toBe(stats.messagesLast30Days); // all mail of the world is from the last day
      expect(c.openTasks).toBe(tasks.length);
      expect(c.openTasks).toBe(stats.activeIssues);
      expect(c.failingSources7d).toBe(threats.length); // every failure is within the threat list's window
      expect(c.alerts7d).toBe(events.events.filter((e: any) => new Date(e.occurredAt).getTime() >= ago(7 * DAY).getTime()).length);
      const last = own.map((d) => d.lastReportAt).filter(Boolean).sort().at(-1) ?? null;
      expect(c.lastReportAt).toBe(last);
      domainSum += stats.totalDomains;
      messageSum += stats.messagesLast30Days;
    }
    expect(clients.reduce((n, c) => n + c.domains, 0)).toBe(domainSum);
    expect(clients.reduce((n, c) => n + c.messages7d, 0)).toBe(messageSum);

    // and the values themselves
    const [dental, law, empty] = clients;
    expect(dental).toMatchObject({ id: ids.dental, domains: 2, worstStatus: "vulnerable", messages7d: 1100, passRate7d: 86.4, passRate30d: 86.4, failingSources7d: 1, policyMix: { reject: 1, none: 1, quarantine: 0, missing: 0 } });
    expect(law).toMatchObject({ id: ids.law, domains: 1, worstStatus: "partial", messages7d: 325, passRate7d: 92.3, failingSources7d: 1 });
    expect(empty).toMatchObject({ id: ids.empty, domains: 0, worstStatus: null, messages7d: 0, passRate7d: null, passRate30d: null, failingSources7d: 0, alerts7d: 0, lastReportAt: null });
    expect(dental.openTasks).toBeGreaterThan(0);
    expect(dental.lastReportAt).not.toBeNull();
    expect(new Set(clients.map((c) => c.plan)).size).toBe(1);
  });

  test("an organization without clients has an empty portfolio", async () => {
    const res = await t.json("GET", "/api/portfolio", { cookie: msp.cookie });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ clients: [] });
  });

  test("only the managing organization's owners and admins see it; never a client's own members", async () => {
    const ids = await portfolioWorld();
    const store = t.deps.store;
    // the MSP's admin sees it; its member and viewer do not
    for (const [role, status] of [["admin", 200], ["member", 403], ["viewer", 403]] as const) {
      const user = await createUser(store, `msp-${role}@example.test`);
      await addMember(store, msp.orgId, user, role);
      const res = await t.json("GET", "/api/portfolio", { cookie: await signIn(store, user, msp.orgId) });
      expect(res.status).toBe(status);
    }
    // a client's own members, its owner too: 403 on the portfolio, 404 on the other clients
    for (const role of ["owner", "admin", "member", "viewer"] as const) {
      const user = await createUser(store, `dental-${role}@example.test`);
      await addMember(store, ids.dental, user, role);
      const cookie = await signIn(store, user, ids.dental);
      const res = await t.json("GET", "/api/portfolio", { cookie });
      expect([403, 404]).toContain(res.status);
      expect(JSON.stringify(res.body)).not.toContain("Baker Law");
      const imported = await t.json("POST", "/api/portfolio/import", { cookie, body: { csv: "Sneaky Co, sneaky.example", dryRun: false } });
      expect([403, 404]).toContain(imported.status);
      expect((await t.json("POST", `/api/orgs/${ids.law}/switch`, { cookie })).status).toBe(404);
      // a token the client's owner made
      if (role === "owner") {
        const token = `dwt_dental-${crypto.randomUUID()}`;
        await store.db.insert(apiTokens).values({ orgId: ids.dental, name: "dental token", role: "owner", tokenHash: hashToken(token), createdBy: user });
        const withToken = await t.json("GET", "/api/portfolio", { headers: { authorization: `Bearer ${token}` } });
        expect([403, 404]).toContain(withToken.status);
        expect(JSON.stringify(withToken.body)).not.toContain("Baker Law");
      }
    }
    // the MSP's owner, switched into a client, is sent back to the managing organization
    const inClient = await signIn(store, msp.userId, ids.dental);
    const fromClient = await t.json("GET", "/api/portfolio", { cookie: inClient });
    expect(fromClient.status).toBe(403);
    expect(fromClient.body.error.message).toContain("managing organization");
    // another MSP sees only its own clients
    const other = await signedInMember(store, "owner", "Other MSP");
    await t.json("POST", "/api/orgs/clients", { cookie: other.cookie, body: { name: "Their Client" } });
    const theirs = await t.json("GET", "/api/portfolio", { cookie: other.cookie });
    expect(theirs.body.clients.map((c: any) => c.name)).toEqual(["Their Client"]);
    // signed out
    expect((await t.json("GET", "/api/portfolio")).status).toBe(401);
  });

  test("an admin API token of the managing organization reads it", async () => {
    await portfolioWorld();
    const token = `dwt_msp-${crypto.randomUUID()}`;
    await t.deps.store.db.insert(apiTokens).values({ orgId: msp.orgId, name: "msp token", role: "admin", tokenHash: hashToken(token), createdBy: msp.userId });
    const res = await t.json("GET", "/api/portfolio", { headers: { authorization: `Bearer ${token}` } });
    expect(res.status).toBe(200);
    expect(res.body.clients).toHaveLength(3);
  });
});
