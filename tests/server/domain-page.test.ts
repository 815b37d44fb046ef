/**
 * The domain page's API: GET /api/domains/:id (stored statuses, the records analysed through
 * the test DNS server, selectors seen) and GET /api/domains/:id/history (the DNS change
 * timeline from the rows the checks write). Rows are written with awaited queries: both stores.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { strToU8 } from "fflate";
import { domains, memberships, organizations, sessions, users, type Role } from "../../src/db/schema";
import { newSession, SESSION_COOKIE } from "../../src/features/auth/sessions";
import { createResolver } from "../../src/features/dns/resolver";
import { checkDomain } from "../../src/features/domains/status";
import { ingestFile } from "../../src/features/reports/ingest";
import { reverseDnsSettled } from "../../src/features/reports/reverse-dns";
import { aggregateXml } from "../../src/lib/reports/generate";
import { makeTestApp, type TestApp } from "../support/app";
import { fixtureZone, startDnsServer, type TestDnsServer } from "../support/dns-server";

let dns: TestDnsServer;
beforeAll(async () => {
  dns = await startDnsServer(fixtureZone());
});
afterAll(() => dns.close());

let seq = 0;
async function member(t: TestApp, role: Role = "owner") {
  const db = t.deps.store.db;
  const [org] = await db.insert(organizations).values({ name: `Org ${++seq}`, slug: `dp-${seq}-${crypto.randomUUID().slice(0, 8)}` }).returning({ id: organizations.id });
  const [user] = await db.insert(users).values({ name: "Test User", email: `u-${crypto.randomUUID()}@example.test` }).returning({ id: users.id });
  await db.insert(memberships).values({ orgId: org!.id, userId: user!.id, role });
  const { token, row } = newSession(user!.id, org!.id, new Date());
  await db.insert(sessions).values(row);
  return { orgId: org!.id, cookie: `${SESSION_COOKIE}=${token}` };
}

describe("the domain page API", () => {
  test("overview, then a DNS change shows in the history with old → new values and statuses; another organization gets 404", async () => {
    let now = new Date("2025-01-01T00:00:00Z");
    const resolver = createResolver({ servers: [{ host: dns.host, port: dns.port }], timeoutMs: 500, cache: false });
    const t = await makeTestApp({ deps: { now: () => now, resolver } });
    try {
      const { orgId, cookie } = await member(t, "viewer");
      const [row] = await t.deps.store.db.insert(domains).values({ orgId, name: "weak.test" }).returning({ id: domains.id });
      const id = row!.id;
      const deps = { store: t.deps.store, resolver, now: () => now };

      // a report that signs with selector "s1": the page lists it as seen
      const xml = aggregateXml({ orgName: "google.com", reportId: "dp-1", begin: new Date("2024-12-31T00:00:00Z"), end: new Date("2024-12-31T23:59:59Z"), domain: "weak.test", records: [{ sourceIp: "209.85.220.41", count: 3, dkim: "pass", spf: "pass", dkimAuth: [{ domain: "weak.test", selector: "s1", result: "pass" }] }] });
      expect((await ingestFile(t.deps, { orgId, fileName: "r.xml", bytes: strToU8(xml), source: "upload" })).status).toBe("ingested");
      await reverseDnsSettled();

      await checkDomain(deps, id);
      const overview = await t.json("GET", `/api/domains/${id}`, { cookie });
      expect(overview.status).toBe(200);
      expect(overview.body.domain).toMatchObject({ id, name: "weak.test", dmarcPolicy: "reject", spfStatus: "valid", dkimStatus: "weak key", overallStatus: "partial" });
      expect(overview.body.analysis).toMatchObject({ domain: "weak.test", overallStatus: "partial", dmarc: { recordValue: "v=DMARC1; p=reject" }, spf: { recordValue: "v=spf1 -all" } });
      expect(overview.body.analysis.spf.details).toHaveProperty("lookupCount");
      expect(overview.body.analysisError).toBeNull();
      expect(overview.body.selectorsSeen).toEqual(["s1"]);

      // the owner weakens DMARC to p=none
      const before = dns.zone["_dmarc.weak.test"];
      dns.zone["_dmarc.weak.test"] = { TXT: ["v=DMARC1; p=none"] };
      try {
        now = new Date("2025-01-02T09:30:00Z");
        await checkDomain(deps, id);
      } finally {
        dns.zone["_dmarc.weak.test"] = before!;
      }

      const history = await t.json("GET", `/api/domains/${id}/history`, { cookie });
      expect(history.status).toBe(200);
      expect(history.body.nextBefore).toBeNull();
      expect(history.body.items).toHaveLength(2);
      const [change, first] = history.body.items;
      expect(change).toMatchObject({ checkedAt: "2025-01-02T09:30:00.000Z", first: false, overallBefore: "partial" });
      expect(change.changes).toEqual([{ record: "dmarc", before: "v=DMARC1; p=reject", after: "v=DMARC1; p=none", statusBefore: "reject", statusAfter: "none" }]);
      expect(first).toMatchObject({ checkedAt: "2025-01-01T00:00:00.000Z", first: true, overallBefore: null, overallAfter: "partial" });
      expect(first.changes.map((c: any) => c.record)).toEqual(["dmarc", "spf", "dkim"]);

      // paging: one at a time
      const one = await t.json("GET", `/api/domains/${id}/history?limit=1`, { cookie });
      expect(one.body.items).toHaveLength(1);
      expect(one.body.items[0].first).toBe(false);
      expect(one.body.nextBefore).toBe("2025-01-02T09:30:00.000Z");
      const two = await t.json("GET", `/api/domains/${id}/history?limit=1&before=${encodeURIComponent(one.body.nextBefore)}`, { cookie });
      expect(two.body.items.map((i: any) => i.checkedAt)).toEqual(["2025-01-01T00:00:00.000Z"]);
      expect(two.body.nextBefore).toBeNull();

      expect((await t.json("GET", `/api/domains/${id}/history?limit=0`, { cookie })).body.error.message).toBe("limit must be a whole number from 1 to 200");
      expect((await t.json("GET", `/api/domains/${id}/history?before=yesterday`, { cookie })).status).toBe(400);

      const other = await member(t, "owner");
      for (const path of [`/api/domains/${id}`, `/api/domains/${id}/history`]) {
        const res = await t.json("GET", path, { cookie: other.cookie });
        expect(res.status).toBe(404);
        expect(JSON.stringify(res.body)).not.toContain("weak.test");
      }
      expect((await t.json("GET", "/api/domains/no-such-id", { cookie })).status).toBe(404);
    } finally {
      await t.close();
    }
  });

  test("without a resolver the overview still answers, saying why the records are missing", async () => {
    const t = await makeTestApp();
    try {
      const { orgId, cookie } = await member(t);
      const [row] = await t.deps.store.db.insert(domains).values({ orgId, name: "quiet.example" }).returning({ id: domains.id });
      const res = await t.json("GET", `/api/domains/${row!.id}`, { cookie });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ domain: { name: "quiet.example", overallStatus: "pending" }, analysis: null, analysisError: "DNS lookups are not available on this server.", selectorsSeen: [] });
    } finally {
      await t.close();
    }
  });
});
