/**
 * What a signed-in organisation adds to the DNS checks: DKIM selectors seen in its own reports
 * (never another organisation's) and its DNS cache settings, in the domain checks and in
 * POST /api/dns-lookup. Signed out, the lookup works as before.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { eq, sql } from "drizzle-orm";
import { domains } from "../../db/schema";
import { makeTestApp, type TestApp } from "../../../tests/support/app";
import { fixtureZone, startDnsServer, type TestDnsServer } from "../../../tests/support/dns-server";
import { signedInMember, type SignedIn } from "../../../tests/support/fixtures";
import { sampleAggregate, xmlBytes } from "../../../tests/support/report-fixtures";
import { checkDomain } from "../domains/status";
import { reverseDnsSettled } from "../reports/reverse-dns";
import { selectorsSeen } from "../reports/service";
import { createResolver } from "./resolver";
import { domainCheckDeps } from "./setup";

let dns: TestDnsServer;
let t: TestApp;
beforeAll(async () => {
  dns = await startDnsServer(fixtureZone());
});
afterAll(() => dns.close());
beforeEach(async () => {
  // the server default: caching on
  t = await makeTestApp({ deps: { resolver: createResolver({ servers: [{ host: dns.host, port: dns.port }], timeoutMs: 500 }) } });
});
afterEach(async () => {
  await reverseDnsSettled();
  t.close();
});

const DAY = 86_400_000;

async function addDomain(orgId: string, name: string): Promise<string> {
  return (await t.deps.store.db.insert(domains).values({ orgId, name }).returning({ id: domains.id }))[0]!.id;
}

/** Uploads an aggregate report for `domain` whose DKIM results carry `selectors` (d= `dkimDomain`). */
async function uploadReportWithSelectors(who: SignedIn, domain: string, selectors: string[], options: { dkimDomain?: string; daysAgo?: number } = {}) {
  const begin = new Date(Date.now() - (options.daysAgo ?? 2) * DAY);
  const report = sampleAggregate(domain, {
    begin,
    end: new Date(begin.getTime() + DAY - 1000),
    records: selectors.map((selector, i) => ({
      sourceIp: `192.0.2.${i + 1}`,
      count: 5,
      dkim: "pass",
      spf: "pass",
      dkimAuth: [{ domain: options.dkimDomain ?? domain, selector, result: "pass" }],
      spfAuth: [{ domain, result: "pass" }],
    })),
  });
  const form = new FormData();
  form.append("files", new File([xmlBytes(report) as Uint8Array<ArrayBuffer>], "report.xml"));
  const res = await t.json("POST", "/api/reports/upload", { body: form, cookie: who.cookie });
  expect(res.body.results[0].status).toBe("ingested");
}

const lookup = (domain: string, cookie?: string) => t.json("POST", "/api/dns-lookup", { body: { domain }, cookie });
const keySelectors = (analysis: { dkim: { details: { keys: { selector: string }[] } } }) => analysis.dkim.details.keys.map((k) => k.selector);

describe("DKIM selectors seen in the organization's reports", () => {
  test("the domain check and the signed-in lookup find a key at a reported selector; signed out and other organizations do not", async () => {
    const owner = await signedInMember(t.deps.store, "owner");
    const other = await signedInMember(t.deps.store, "owner");
    const ownDomain = await addDomain(owner.orgId, "reportsel.test");
    const otherDomain = await addDomain(other.orgId, "reportsel.test");
    await uploadReportWithSelectors(owner, "reportsel.test", ["s2026"]);

    const checks = domainCheckDeps(t.deps)!;
    const analysis = await checkDomain(checks, ownDomain);
    expect(analysis?.dkim.status).toBe("valid");
    expect(keySelectors(analysis!)).toEqual(["s2026"]);
    expect((await t.deps.store.db.select().from(domains).where(eq(domains.id, ownDomain)))[0]).toMatchObject({ dkimStatus: "valid", overallStatus: "protected" });

    // the same domain in another organisation, which has no such reports
    expect((await checkDomain(checks, otherDomain))?.dkim.status).toBe("missing");
    expect((await t.deps.store.db.select().from(domains).where(eq(domains.id, otherDomain)))[0]).toMatchObject({ dkimStatus: "missing" });

    const signedIn = await lookup("reportsel.test", owner.cookie);
    expect(signedIn.status).toBe(200);
    expect(signedIn.body.dkim).toMatchObject({ status: "valid", isValid: true });
    expect(keySelectors(signedIn.body)).toEqual(["s2026"]);

    const signedOut = await lookup("reportsel.test");
    expect(signedOut.status).toBe(200);
    expect(signedOut.body.dkim).toMatchObject({ status: "missing", isValid: false });

    const otherOrg = await lookup("reportsel.test", other.cookie);
    expect(otherOrg.body.dkim.status).toBe("missing");
  });

  test("selectorsSeen: the domain and its subdomains, most recent first, well-formed, within the window, one organization", async () => {
    const owner = await signedInMember(t.deps.store, "owner");
    const other = await signedInMember(t.deps.store, "owner");
    await addDomain(owner.orgId, "seen.example");
    await addDomain(other.orgId, "seen.example");
    await uploadReportWithSelectors(owner, "seen.example", ["old2024"], { daysAgo: 30 });
    await uploadReportWithSelectors(owner, "seen.example", ["old2024"], { daysAgo: 10 });
    await uploadReportWithSelectors(owner, "seen.example", ["Recent"], { daysAgo: 1 });
    await uploadReportWithSelectors(owner, "seen.example", ["sub1"], { dkimDomain: "mail.seen.example", daysAgo: 5 });
    await uploadReportWithSelectors(owner, "seen.example", ["elsewhere"], { dkimDomain: "notseen.example", daysAgo: 1 });
    await uploadReportWithSelectors(owner, "seen.example", ["bad selector!"], { daysAgo: 1 });
    await uploadReportWithSelectors(owner, "seen.example", ["ancient"], { daysAgo: 400 });
    await uploadReportWithSelectors(other, "seen.example", ["theirs"], { daysAgo: 1 });

    // stored as reported, but never turned into a DNS name
    expect((await t.deps.store.rows<{ n: number | string }>(sql`SELECT count(*) AS n FROM aggregate_records WHERE dkim_results LIKE '%"bad selector!"%'`)).map((r) => Number(r.n))).toEqual([1]);
    expect(await selectorsSeen(t.deps, owner.orgId, "seen.example")).toEqual(["recent", "sub1", "old2024"]);
    expect(await selectorsSeen(t.deps, owner.orgId, "SEEN.example", { limit: 1 })).toEqual(["recent"]);
    expect(await selectorsSeen(t.deps, other.orgId, "seen.example")).toEqual(["theirs"]);
    expect((await selectorsSeen(t.deps, owner.orgId, "example")).sort()).toEqual(["elsewhere", "old2024", "recent", "sub1"]);
  });
});

describe("the organization's DNS cache settings", () => {
  async function setCaching(who: SignedIn, dnsCaching: boolean, cacheTtlSeconds: number) {
    const current = await t.json("GET", "/api/settings", { cookie: who.cookie });
    const { canEdit: _canEdit, updatedAt: _updatedAt, ...settings } = current.body;
    const saved = await t.json("PUT", "/api/settings", { cookie: who.cookie, body: { ...settings, dnsCaching, cacheTtlSeconds } });
    expect(saved.status).toBe(200);
  }

  test("caching off: a record changed between two signed-in lookups is seen at once", async () => {
    const owner = await signedInMember(t.deps.store, "owner");
    await setCaching(owner, false, 3600);
    dns.zone["cacheoff.test"] = { TXT: ["v=spf1 ip4:192.0.2.1 -all"] };
    expect((await lookup("cacheoff.test", owner.cookie)).body.spf.recordValue).toBe("v=spf1 ip4:192.0.2.1 -all");
    dns.zone["cacheoff.test"] = { TXT: ["v=spf1 ip4:192.0.2.2 -all"] };
    expect((await lookup("cacheoff.test", owner.cookie)).body.spf.recordValue).toBe("v=spf1 ip4:192.0.2.2 -all");
  });

  test("caching on with TTL 3600: the cached answer is returned; switching caching off shows the change", async () => {
    const owner = await signedInMember(t.deps.store, "owner");
    await setCaching(owner, true, 3600);
    dns.zone["cacheon.test"] = { TXT: ["v=spf1 ip4:192.0.2.1 -all"] };
    expect((await lookup("cacheon.test", owner.cookie)).body.spf.recordValue).toBe("v=spf1 ip4:192.0.2.1 -all");
    dns.zone["cacheon.test"] = { TXT: ["v=spf1 ip4:192.0.2.2 -all"] };
    expect((await lookup("cacheon.test", owner.cookie)).body.spf.recordValue).toBe("v=spf1 ip4:192.0.2.1 -all");

    await setCaching(owner, false, 3600);
    expect((await lookup("cacheon.test", owner.cookie)).body.spf.recordValue).toBe("v=spf1 ip4:192.0.2.2 -all");
  });

  test("the organization's domain checks follow its setting; signed out, the server's cache applies", async () => {
    const uncached = await signedInMember(t.deps.store, "owner");
    await setCaching(uncached, false, 3600);
    const id = await addDomain(uncached.orgId, "cachecheck.test");
    dns.zone["cachecheck.test"] = { TXT: ["v=spf1 ip4:192.0.2.1 -all"] };
    // a signed-out lookup fills the server's cache
    expect((await lookup("cachecheck.test")).body.spf.recordValue).toBe("v=spf1 ip4:192.0.2.1 -all");
    dns.zone["cachecheck.test"] = { TXT: ["v=spf1 ip4:192.0.2.9 -all"] };
    expect((await lookup("cachecheck.test")).body.spf.recordValue).toBe("v=spf1 ip4:192.0.2.1 -all");
    // the organisation with caching off checks its domain against the live record
    expect((await checkDomain(domainCheckDeps(t.deps)!, id))?.spf.recordValue).toBe("v=spf1 ip4:192.0.2.9 -all");
  });
});
