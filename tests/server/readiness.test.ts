/**
 * Readiness for p=reject (GET /api/domains/:id/enforcement) and explain-and-fix per source with
 * the SPF terms used (GET /api/domains/:id/sources), on reports ingested through the real path
 * and the domain's live DNS from the test DNS server: a known service (SendGrid) failing DKIM
 * alignment, an approved source passing, and a spoofer give exactly the blockers and the
 * projection expected. Both stores.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { strToU8 } from "fflate";
import { domains } from "../../src/db/schema";
import { createResolver } from "../../src/features/dns/resolver";
import { ingestFile } from "../../src/features/reports/ingest";
import { reverseDnsSettled } from "../../src/features/reports/reverse-dns";
import { aggregateXml, type GeneratedRecord } from "../../src/lib/reports/generate";
import { makeTestApp, type TestApp } from "../support/app";
import { dkimPublicKey, splitTxt, startDnsServer, type TestDnsServer } from "../support/dns-server";
import { addMember, createUser, signedInMember, signIn, type SignedIn } from "../support/fixtures";

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const NOW = new Date(Math.floor(Date.now() / DAY) * DAY + 12 * HOUR);
const ago = (ms: number) => new Date(NOW.getTime() - ms);

let dns: TestDnsServer;
beforeAll(async () => {
  const key = dkimPublicKey("rsa", 2048);
  dns = await startDnsServer({
    "ready.example": { TXT: ["v=spf1 ip4:192.0.2.0/24 include:sendgrid.net include:_spf.old-crm.test ~all"] },
    "_dmarc.ready.example": { TXT: ["v=DMARC1; p=none; rua=mailto:dmarc@ready.example"] },
    "mail._domainkey.ready.example": { TXT: [["v=DKIM1; k=rsa; p=", ...splitTxt(key)]] },
    "sendgrid.net": { TXT: ["v=spf1 ip4:167.89.0.0/17 -all"] },
    "_spf.old-crm.test": { TXT: ["v=spf1 ip4:198.51.100.0/24 -all"] },
    // reverse DNS: SendGrid's relay and the approved office server have names; the spoofer none
    "5.1.89.167.in-addr.arpa": { PTR: ["o1.ptr5.sendgrid.net"] },
    "10.2.0.192.in-addr.arpa": { PTR: ["mx.office-relay.example"] },
  });
});
afterAll(() => dns.close());

let t: TestApp;
let owner: SignedIn;
let domainId: string;
let resolver: ReturnType<typeof createResolver>;
let seq = 0;

beforeEach(async () => {
  resolver = createResolver({ servers: [{ host: dns.host, port: dns.port }], timeoutMs: 1000, cache: false });
  t = await makeTestApp({ deps: { now: () => NOW, resolver } });
  owner = await signedInMember(t.deps.store, "owner", "Ready Co");
  domainId = (await t.deps.store.db.insert(domains).values({ orgId: owner.orgId, name: "ready.example", dmarcPolicy: "none", spfStatus: "valid", dkimStatus: "valid", overallStatus: "partial" }).returning({ id: domains.id }))[0]!.id;
});
afterEach(() => t.close());

async function ingest(records: GeneratedRecord[], begin: Date) {
  const xml = aggregateXml({ orgName: "google.com", reportId: `rd-${++seq}`, begin, end: new Date(begin.getTime() + DAY - 1000), domain: "ready.example", p: "none", records });
  expect((await ingestFile(t.deps, { orgId: owner.orgId, fileName: `rd${seq}.xml`, bytes: strToU8(xml), source: "upload" })).status).toBe("ingested");
  await reverseDnsSettled();
}

/** SendGrid signs with its own domain (DKIM not aligned) and bounces to its own (SPF not aligned); the office relay is approved and signs aligned; a spoofer fails everything. */
async function seed() {
  await ingest(
    [
      { sourceIp: "167.89.1.5", count: 40, dkim: "fail", spf: "fail", dkimAuth: [{ domain: "sendgrid.net", selector: "smtpapi", result: "pass" }], spfAuth: [{ domain: "em123.sendgrid.net", scope: "mfrom", result: "pass" }] },
      { sourceIp: "192.0.2.10", count: 500, dkim: "pass", spf: "pass", dkimAuth: [{ domain: "ready.example", selector: "mail", result: "pass" }], spfAuth: [{ domain: "ready.example", scope: "mfrom", result: "pass" }] },
      { sourceIp: "203.0.113.66", count: 25, dkim: "fail", spf: "fail", spfAuth: [{ domain: "ready.example", scope: "mfrom", result: "softfail" }] },
    ],
    ago(3 * DAY),
  );
  // older than 30 days: not counted
  await ingest([{ sourceIp: "203.0.113.66", count: 999, dkim: "fail", spf: "fail" }], ago(40 * DAY));
  const mark = await t.json("PUT", `/api/senders/${encodeURIComponent("domain:office-relay.example")}/mark`, { cookie: owner.cookie, body: { verdict: "approved" } });
  expect(mark.status).toBe(200);
}

describe("GET /api/domains/:id/enforcement", () => {
  test("a known service failing DKIM alignment is the one blocker; the approved source passes; the spoofer is not yours", async () => {
    await seed();
    const res = await t.json("GET", `/api/domains/${domainId}/enforcement`, { cookie: owner.cookie });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ stage: "none", nextStage: "quarantine", pct: 100, ready: false, analysisError: null });
    expect(res.body.blockers).toEqual([
      {
        source: "Twilio SendGrid",
        senderKey: "service:Twilio SendGrid",
        service: "Twilio SendGrid",
        mark: null,
        ips: ["167.89.1.5"],
        messages: 40,
        totalMessages: 40,
        fix: "Publish the DKIM key for selector `s1` that Twilio SendGrid shows you, and turn on custom-domain signing for ready.example (in SendGrid's Sender Authentication (domain authentication)).",
      },
    ]);
    expect(res.body.projection).toEqual({ days: 30, yoursUnauthenticated: 40, notYours: 25, messages: 565 });
    // SendGrid's 40 of 565 messages is over the ramp's 2%: fix first
    expect(res.body.recommendation.record).toBeNull();
    expect(res.body.recommendation.words).toContain("Fix the blockers first");
  });

  test("no reports: ready for quarantine with the record to publish; a new DMARC policy moves the stage", async () => {
    const res = await t.json("GET", `/api/domains/${domainId}/enforcement`, { cookie: owner.cookie });
    expect(res.body).toMatchObject({ stage: "none", nextStage: "quarantine", blockers: [], ready: true, projection: { days: 30, yoursUnauthenticated: 0, notYours: 0 } });
    expect(res.body.recommendation.record).toBe("v=DMARC1; p=quarantine; rua=mailto:dmarc@ready.example");
    const before = dns.zone["_dmarc.ready.example"];
    dns.zone["_dmarc.ready.example"] = { TXT: ["v=DMARC1; p=quarantine; pct=50; rua=mailto:dmarc@ready.example"] };
    // the organisation's DNS cache settings keep answers; a new record is read once the cache is cleared
    resolver.clearCache();
    try {
      const q = await t.json("GET", `/api/domains/${domainId}/enforcement`, { cookie: owner.cookie });
      expect(q.body).toMatchObject({ stage: "quarantine", pct: 50, nextStage: "reject" });
    } finally {
      dns.zone["_dmarc.ready.example"] = before!;
    }
  });

  test("another organization's domain is 404, and every role of the organization may read", async () => {
    const other = await signedInMember(t.deps.store, "owner", "Elsewhere");
    for (const p of ["enforcement", "sources"]) {
      const res = await t.json("GET", `/api/domains/${domainId}/${p}`, { cookie: other.cookie });
      expect(res.status).toBe(404);
      expect(JSON.stringify(res.body)).not.toContain("ready.example");
    }
    const viewer = await createUser(t.deps.store);
    await addMember(t.deps.store, owner.orgId, viewer, "viewer");
    expect((await t.json("GET", `/api/domains/${domainId}/enforcement`, { cookie: await signIn(t.deps.store, viewer, owner.orgId) })).status).toBe(200);
    expect((await t.json("GET", `/api/domains/${domainId}/enforcement`)).status).toBe(401);
  });
});

describe("GET /api/domains/:id/sources", () => {
  test("each source against the live DNS, and the SPF terms that authorized mail", async () => {
    await seed();
    const res = await t.json("GET", `/api/domains/${domainId}/sources`, { cookie: owner.cookie });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ domain: "ready.example", days: 30, analysisError: null });
    const by = Object.fromEntries(res.body.sources.map((s: any) => [s.ip, s]));
    expect(Object.keys(by).sort()).toEqual(["167.89.1.5", "192.0.2.10", "203.0.113.66"]);

    const sg = by["167.89.1.5"];
    expect(sg).toMatchObject({ service: "Twilio SendGrid", yours: true, failing: 40, failsAlignment: ["spf", "dkim"] });
    expect(sg.spf).toMatchObject({ domain: "em123.sendgrid.net", result: "pass", aligned: false, live: { result: "pass", mechanism: "ip4:167.89.0.0/17", via: ["include:sendgrid.net", "ip4:167.89.0.0/17"] } });
    expect(sg.spf.alignment).toBe("em123.sendgrid.net is not ready.example or a name under ready.example");
    expect(sg.dkim.signatures).toEqual([{ domain: "sendgrid.net", selector: "smtpapi", result: "pass", messages: 40, aligned: false, alignment: "sendgrid.net is not ready.example or a name under ready.example", key: null }]);

    const office = by["192.0.2.10"];
    expect(office).toMatchObject({ sender: "office-relay.example", mark: "approved", yours: true, failing: 0, fix: "No change needed: all its mail passes DMARC (DKIM aligned)." });
    expect(office.spf.live).toMatchObject({ result: "pass", mechanism: "ip4:192.0.2.0/24" });
    expect(office.dkim.signatures[0]).toMatchObject({ selector: "mail", aligned: true, key: { status: "valid", bits: 2048 } });

    const spoofer = by["203.0.113.66"];
    expect(spoofer).toMatchObject({ yours: false, failing: 25, fix: "This source is not yours: no change, reject will stop it. (If it is yours after all, mark it approved on its sender page to see how to set it up.)" });
    expect(spoofer.spf.live).toMatchObject({ result: "softfail", mechanism: "~all" });

    expect(res.body.spfUsage).toMatchObject({ domain: "ready.example", lookups: 2, unused: ["include:_spf.old-crm.test"], lookupsSaved: 1, rewrite: null });
    expect(res.body.spfUsage.terms).toEqual([
      { term: "ip4:192.0.2.0/24", kind: "ip4", lookups: 0, messages: 500, sources: 1 },
      { term: "include:sendgrid.net", kind: "include", lookups: 1, messages: 40, sources: 1 },
      { term: "include:_spf.old-crm.test", kind: "include", lookups: 1, messages: 0, sources: 0 },
      { term: "~all", kind: "all", lookups: 0, messages: 0, sources: 0 },
    ]);
  });

  test("the most mail first; sources with the same mail by address in code-unit order, whatever the server's locale", async () => {
    await ingest(
      [
        { sourceIp: "2001:db8::1", count: 10, dkim: "fail", spf: "fail" },
        { sourceIp: "192.0.2.10", count: 500, dkim: "pass", spf: "pass" },
        { sourceIp: "2001:db8:1::", count: 10, dkim: "fail", spf: "fail" },
      ],
      ago(2 * DAY),
    );
    const res = await t.json("GET", `/api/domains/${domainId}/sources`, { cookie: owner.cookie });
    expect(res.status).toBe(200);
    // a locale's collation puts "2001:db8::1" first (':' before digits); ':' is 0x3A, after '1'
    expect(res.body.sources.map((s: any) => s.ip)).toEqual(["192.0.2.10", "2001:db8:1::", "2001:db8::1"]);
  });

  test("without DNS the sources are still listed, with the reason", async () => {
    const plain = await makeTestApp({ deps: { now: () => NOW } });
    try {
      const me = await signedInMember(plain.deps.store, "owner");
      const id = (await plain.deps.store.db.insert(domains).values({ orgId: me.orgId, name: "nodns.example", dmarcPolicy: "none" }).returning({ id: domains.id }))[0]!.id;
      const e = await plain.json("GET", `/api/domains/${id}/enforcement`, { cookie: me.cookie });
      expect(e.body).toMatchObject({ stage: "none", nextStage: "quarantine", blockers: [] });
      expect(e.body.analysisError).toContain("DNS lookups are not available");
      const s = await plain.json("GET", `/api/domains/${id}/sources`, { cookie: me.cookie });
      expect(s.body).toMatchObject({ sources: [], spfUsage: { record: null } });
    } finally {
      await plain.close();
    }
  });
});
