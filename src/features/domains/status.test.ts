import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { domainRecordHistory, domains } from "../../db/schema";
import { makeTestApp } from "../../../tests/support/app";
import { fixtureZone, startDnsServer, type TestDnsServer } from "../../../tests/support/dns-server";
import { signedInMember } from "../../../tests/support/fixtures";
import { wireDnsChecks } from "../dns/setup";
import { createResolver } from "../dns/resolver";
import { checkDomain, checkDueDomains } from "./status";

let dns: TestDnsServer;
beforeAll(async () => {
  dns = await startDnsServer(fixtureZone());
});
afterAll(() => dns.close());

const resolverFor = () => createResolver({ servers: [{ host: dns.host, port: dns.port }], timeoutMs: 500, cache: false });

describe("domain statuses", () => {
  test("a check stores the four statuses and one history row; an unchanged re-check adds none; a change adds one", async () => {
    const t = await makeTestApp();
    try {
      const db = t.deps.store.db;
      const { orgId } = await signedInMember(t.deps.store, "owner");
      const row = (await db.insert(domains).values({ orgId, name: "weak.test" }).returning())[0]!;
      let now = new Date("2025-01-01T00:00:00Z");
      const deps = { store: t.deps.store, resolver: resolverFor(), now: () => now };

      await checkDomain(deps, row.id);
      expect((await db.select().from(domains).where(eq(domains.id, row.id)))[0]).toMatchObject({ dmarcPolicy: "reject", spfStatus: "valid", dkimStatus: "weak key", overallStatus: "partial", lastCheckedAt: now });
      const first = await db.select().from(domainRecordHistory).where(eq(domainRecordHistory.domainId, row.id));
      expect(first).toHaveLength(1);
      expect(first[0]).toMatchObject({ dmarcRecord: "v=DMARC1; p=reject", spfRecord: "v=spf1 -all", dkimStatus: "weak key", changed: "" });

      now = new Date("2025-01-01T06:00:00Z");
      await checkDomain(deps, row.id);
      expect(await db.select().from(domainRecordHistory).where(eq(domainRecordHistory.domainId, row.id))).toHaveLength(1);
      expect((await db.select().from(domains).where(eq(domains.id, row.id)))[0]?.lastCheckedAt).toEqual(now);

      // the owner strengthens DMARC… (the zone is live)
      const before = dns.zone["_dmarc.weak.test"];
      dns.zone["_dmarc.weak.test"] = { TXT: ["v=DMARC1; p=quarantine"] };
      try {
        now = new Date("2025-01-01T12:00:00Z");
        await checkDomain(deps, row.id);
      } finally {
        dns.zone["_dmarc.weak.test"] = before!;
      }
      const history = await db.select().from(domainRecordHistory).where(eq(domainRecordHistory.domainId, row.id));
      expect(history).toHaveLength(2);
      expect(history.find((h) => h.changed)).toMatchObject({ changed: "dmarc", dmarcPolicy: "quarantine", dmarcRecord: "v=DMARC1; p=quarantine" });
    } finally {
      t.close();
    }
  });

  test("a DNS failure keeps the stored statuses", async () => {
    const t = await makeTestApp();
    try {
      const db = t.deps.store.db;
      const { orgId } = await signedInMember(t.deps.store, "owner");
      const row = (await db.insert(domains).values({ orgId, name: "broken.test" }).returning())[0]!;
      expect(await checkDomain({ store: t.deps.store, resolver: resolverFor(), now: () => new Date() }, row.id)).toBeNull();
      expect((await db.select().from(domains).where(eq(domains.id, row.id)))[0]).toMatchObject({ overallStatus: "pending", lastCheckedAt: null });
    } finally {
      t.close();
    }
  });

  test("due domains (never checked, or older than the interval) are checked; fresh ones are not", async () => {
    const t = await makeTestApp();
    try {
      const db = t.deps.store.db;
      const { orgId } = await signedInMember(t.deps.store, "owner");
      const now = new Date("2025-02-01T00:00:00Z");
      await db.insert(domains).values([
        { orgId, name: "good.test" },
        { orgId, name: "nopolicy.test", lastCheckedAt: new Date(now.getTime() - 7 * 3600_000) },
        { orgId, name: "ed.test", lastCheckedAt: new Date(now.getTime() - 3600_000), overallStatus: "pending" },
      ]);
      expect(await checkDueDomains({ store: t.deps.store, resolver: resolverFor(), now: () => now }, 360)).toBe(2);
      const byName = Object.fromEntries((await db.select().from(domains)).map((d) => [d.name, d.overallStatus]));
      expect(byName).toEqual({ "good.test": "protected", "nopolicy.test": "vulnerable", "ed.test": "pending" });
    } finally {
      t.close();
    }
  });

  test("two app nodes running their schedulers at once check each due domain once", async () => {
    const t = await makeTestApp();
    try {
      const db = t.deps.store.db;
      const { orgId } = await signedInMember(t.deps.store, "owner");
      const now = new Date("2025-02-01T00:00:00Z");
      await db.insert(domains).values([{ orgId, name: "good.test" }, { orgId, name: "nopolicy.test" }, { orgId, name: "weak.test" }]);
      const node = () => ({ store: t.deps.store, resolver: resolverFor(), now: () => now });
      const [a, b] = await Promise.all([checkDueDomains(node(), 360), checkDueDomains(node(), 360)]);
      expect(a + b).toBe(3);
      expect((await db.select().from(domainRecordHistory)).length).toBe(3);
      // a minute later both nodes wake again: nothing is due, nothing is checked twice
      const later = { ...node(), now: () => new Date(now.getTime() + 60_000) };
      expect(await checkDueDomains(later, 360)).toBe(0);
    } finally {
      t.close();
    }
  });

  test("adding a domain through the API checks it (deps.onDomainAdded)", async () => {
    const t = await makeTestApp({ deps: { resolver: resolverFor() } });
    const scheduler = wireDnsChecks(t.deps);
    try {
      const { cookie } = await signedInMember(t.deps.store, "owner");
      const created = await t.json("POST", "/api/domains", { cookie, body: { name: "good.test" } });
      expect(created.status).toBe(201);
      let row;
      for (let i = 0; i < 100; i++) {
        row = (await t.deps.store.db.select().from(domains).where(eq(domains.id, created.body.id)))[0];
        if (row?.overallStatus !== "pending") break;
        await Bun.sleep(20);
      }
      expect(row).toMatchObject({ dmarcPolicy: "reject", spfStatus: "valid", dkimStatus: "valid", overallStatus: "protected" });
    } finally {
      await scheduler.stop();
      t.close();
    }
  });
});
