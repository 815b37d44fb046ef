/**
 * DNS failures are not findings. When the DNS server times out or answers SERVFAIL, the lookup
 * (POST /api/dns-lookup), the domain status and `dmarcwarden check` say "could not check (DNS
 * server did not answer)" and give no "vulnerable", "invalid" or setup advice built on answers
 * that never came; a domain keeps its last good result, with its time, and says its check failed.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { eq } from "drizzle-orm";
import { makeTestApp, type TestApp } from "../support/app";
import { fixtureZone, startDnsServer, type TestDnsServer, type Zone } from "../support/dns-server";
import { signedInMember } from "../support/fixtures";
import { createResolver, type DnsResolver } from "../../src/features/dns/resolver";
import { runDomainCheck, type StatusDeps } from "../../src/features/domains/status";

/** Every name under these domains answers SERVFAIL. */
function servfailZone(...domains: string[]): Zone {
  return Object.fromEntries(domains.flatMap((d) => [[d, { servfail: true }], [`*.${d}`, { servfail: true }]]));
}

let good: TestDnsServer;
let failing: TestDnsServer;
/** a server that was started and stopped: nothing answers on its port */
let stoppedAddress: { host: string; port: number };
let t: TestApp;

const resolverFor = (server: { host: string; port: number }): DnsResolver => createResolver({ servers: [{ host: server.host, port: server.port }], timeoutMs: 300, retries: 0, cache: false });

beforeAll(async () => {
  good = await startDnsServer(fixtureZone());
  failing = await startDnsServer(servfailZone("good.test", "down.test", "test"));
  const stopped = await startDnsServer({});
  stoppedAddress = { host: stopped.host, port: stopped.port };
  await stopped.close();
  t = await makeTestApp({ deps: { resolver: resolverFor(failing) } });
});
afterAll(async () => {
  t?.close();
  await good?.close();
  await failing?.close();
});

/** Every status word and finding of an analysis, to look for verdicts in. */
function verdicts(analysis: any): { statuses: string[]; levels: string[]; messages: string } {
  const checks = [analysis.dmarc, analysis.spf, analysis.dkim, ...Object.values(analysis.extras)] as { status: string; findings: { level: string; message: string; fix?: string }[] }[];
  return {
    statuses: [analysis.overallStatus, ...checks.map((c) => c.status)],
    levels: checks.flatMap((c) => c.findings.map((f) => f.level)),
    messages: checks.flatMap((c) => c.findings.map((f) => `${f.message} ${f.fix ?? ""}`)).join("\n"),
  };
}

describe("the lookup when the DNS server does not answer", () => {
  test("SERVFAIL: every check says could not check; no vulnerable, invalid, error or setup advice", async () => {
    const res = await t.json("POST", "/api/dns-lookup", { body: { domain: "down.test" } });
    expect(res.status).toBe(200);
    const a = res.body;
    expect(a.incomplete).toBe(true);
    expect([a.overallStatus, a.dmarc.status, a.spf.status, a.dkim.status]).toEqual(["unchecked", "unchecked", "unchecked", "unchecked"]);
    expect([a.extras.mx.status, a.extras.mtaSts.status, a.extras.tlsRpt.status, a.extras.bimi.status]).toEqual(["unchecked", "unchecked", "unchecked", "unchecked"]);
    for (const check of [a.dmarc, a.spf, a.dkim]) {
      expect(check.isValid).toBe(false);
      expect(check.errorMessage).toBe("Could not check (DNS server did not answer)");
      expect(check.findings.map((f: { code: string }) => f.code)).toEqual(["dns.not_answered"]);
    }
    const v = verdicts(a);
    expect(v.statuses).not.toContain("vulnerable");
    expect(v.statuses).not.toContain("invalid");
    expect(v.statuses).not.toContain("missing");
    expect(v.levels).not.toContain("error");
    expect(v.messages).toContain("Could not check (DNS server did not answer)");
    // no advice built on the missing answers
    expect(v.messages).not.toMatch(/Publish|Turn on DKIM|is not set up|No DKIM key found/);
  });

  test("a stopped DNS server (timeouts) reads the same", async () => {
    const { analyzeDomain } = await import("../../src/features/dns/analyze");
    const a = await analyzeDomain(resolverFor(stoppedAddress), "good.test");
    expect([a.overallStatus, a.dmarc.status, a.spf.status, a.dkim.status]).toEqual(["unchecked", "unchecked", "unchecked", "unchecked"]);
    expect(verdicts(a).levels).not.toContain("error");
  });
});

describe("a domain's status when its check is not answered", () => {
  test("not checked yet → check failed; after a good check, the last good result stays with its time", async () => {
    const owner = await signedInMember(t.deps.store, "owner");
    const { domains } = t.deps.store.t;
    const [row] = await t.deps.store.write((tx) => tx.insert(domains).values({ orgId: owner.orgId, name: "good.test" }).returning({ id: domains.id }));
    const id = row!.id;
    let clock = new Date("2026-03-01T10:00:00Z");
    const deps = (server: { host: string; port: number }): StatusDeps => ({ store: t.deps.store, resolver: resolverFor(server), now: () => clock });
    const listed = async () => (await t.json("GET", "/api/domains", { cookie: owner.cookie })).body.find((d: { id: string }) => d.id === id);

    expect(await listed()).toMatchObject({ overallStatus: "pending", lastCheckedAt: null, checkFailedAt: null });

    // the first check is not answered: still not checked, and the check failed
    expect((await runDomainCheck(deps(failing), id)).outcome).toBe("incomplete");
    expect(await listed()).toMatchObject({ overallStatus: "pending", dmarcPolicy: null, lastCheckedAt: null, checkFailedAt: clock.toISOString() });

    // a good check: statuses, its time, no failure
    clock = new Date("2026-03-01T11:00:00Z");
    expect((await runDomainCheck(deps(good), id)).outcome).toBe("checked");
    const checkedAt = clock.toISOString();
    expect(await listed()).toMatchObject({ overallStatus: "protected", dmarcPolicy: "reject", spfStatus: "valid", dkimStatus: "valid", lastCheckedAt: checkedAt, checkFailedAt: null });

    // DNS down later (timeouts): the last good result stays, with its time; the failure is recorded
    clock = new Date("2026-03-01T17:00:00Z");
    expect((await runDomainCheck(deps(stoppedAddress), id)).outcome).toBe("incomplete");
    expect(await listed()).toMatchObject({ overallStatus: "protected", dmarcPolicy: "reject", lastCheckedAt: checkedAt, checkFailedAt: clock.toISOString() });
    // no history row or status change came from the failed check
    const history = await t.deps.store.db.select().from(t.deps.store.t.domainRecordHistory).where(eq(t.deps.store.t.domainRecordHistory.domainId, id));
    expect(history.map((h) => h.overallStatus)).toEqual(["protected"]);

    // "Check now" with the DNS server failing: 503 saying so, the last good result kept
    const now = await t.json("POST", `/api/domains/${id}/check`, { cookie: owner.cookie, headers: { origin: "http://localhost" } });
    expect(now.status).toBe(503);
    expect(now.body.error.message).toContain("Could not check (DNS server did not answer)");
    expect((await listed()).overallStatus).toBe("protected");
  });
});

describe("dmarcwarden check when the DNS server does not answer", () => {
  test("one verdict: could not check (DNS server did not answer); exit 3", async () => {
    const proc = Bun.spawn([process.execPath, join(import.meta.dir, "../../src/main.ts"), "check", "down.test", "--dns-server", failing.address, "--dns-timeout", "300", "--smtp-probe-port", "0"], { stdout: "pipe", stderr: "pipe", env: { PATH: process.env.PATH ?? "" } });
    const [out, code] = await Promise.all([new Response(proc.stdout).text(), proc.exited]);
    expect(out.split("\n")[0]).toBe("down.test: could not check (DNS server did not answer)");
    expect(out).toMatch(/^DMARC +could not check \(DNS server did not answer\)$/m);
    expect(out).toMatch(/^SPF +could not check \(DNS server did not answer\)$/m);
    expect(out).not.toMatch(/VULNERABLE|invalid|missing|Publish|✗/);
    expect(code).toBe(3);

    const json = Bun.spawn([process.execPath, join(import.meta.dir, "../../src/main.ts"), "check", "down.test", "--json", "--dns-server", failing.address, "--dns-timeout", "300", "--smtp-probe-port", "0"], { stdout: "pipe", stderr: "pipe", env: { PATH: process.env.PATH ?? "" } });
    const parsed = JSON.parse(await new Response(json.stdout).text());
    expect(parsed.overallStatus).toBe("unchecked");
    expect(await json.exited).toBe(3);
  });
});

describe("a partial failure", () => {
  test("the policy's name up the tree unanswered: DMARC could not be checked (not missing); what answered is judged", async () => {
    const zone: Zone = { ...fixtureZone(), "sub.half.test": { TXT: ["v=spf1 -all"] }, "_dmarc.half.test": { servfail: true } };
    const server = await startDnsServer(zone);
    try {
      const { analyzeDomain } = await import("../../src/features/dns/analyze");
      const a = await analyzeDomain(resolverFor(server), "sub.half.test");
      expect(a.dmarc.status).toBe("unchecked");
      expect(a.dmarc.findings.map((f) => f.code)).toEqual(["dns.not_answered"]);
      expect(a.dmarc.findings[0]!.message).toContain("_dmarc.half.test");
      expect(a.spf.status).toBe("valid");
      expect(a.overallStatus).toBe("unchecked");
    } finally {
      await server.close();
    }
  });
});
