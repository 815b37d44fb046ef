import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { fixtureZone, startDnsServer, type TestDnsServer } from "../../../tests/support/dns-server";
import { makeTestApp, type TestApp } from "../../../tests/support/app";
import { analyzeDomain } from "./analyze";
import { DNS_LOOKUP_LIMIT } from "./contract";
import { createResolver, type DnsResolver } from "./resolver";

let dns: TestDnsServer;
let resolver: DnsResolver;
let t: TestApp;

beforeAll(async () => {
  dns = await startDnsServer(fixtureZone());
  resolver = createResolver({ servers: [{ host: dns.host, port: dns.port }], timeoutMs: 500 });
  t = await makeTestApp({ deps: { resolver } });
});
afterAll(async () => {
  t.close();
  await dns.close();
});

const codes = (findings: { code: string }[]) => findings.map((f) => f.code);

describe("full analysis of each fixture zone", () => {
  test.each([
    // domain, dmarc, spf, dkim, overall
    ["good.test", "reject", "valid", "valid", "protected"],
    ["quarantine.test", "quarantine", "valid", "valid", "protected"],
    ["nopolicy.test", "none", "valid", "missing", "vulnerable"],
    ["missing.test", "missing", "missing", "missing", "vulnerable"],
    ["nothere.test", "missing", "missing", "missing", "vulnerable"],
    ["toomany.test", "reject", "too many lookups", "missing", "partial"],
    ["ten.test", "missing", "valid", "missing", "vulnerable"],
    ["loop.test", "missing", "invalid", "missing", "vulnerable"],
    ["void.test", "missing", "invalid", "missing", "vulnerable"],
    ["twospf.test", "missing", "invalid", "missing", "vulnerable"],
    ["spfsyntax.test", "missing", "invalid", "missing", "vulnerable"],
    ["mxmany.test", "missing", "invalid", "missing", "vulnerable"],
    ["badinclude.test", "missing", "invalid", "missing", "vulnerable"],
    ["redirect.test", "missing", "valid", "missing", "vulnerable"],
    ["weak.test", "reject", "valid", "weak key", "partial"],
    ["ed.test", "reject", "valid", "valid", "protected"],
    ["revoked.test", "missing", "valid", "invalid", "vulnerable"],
    ["badkey.test", "missing", "valid", "invalid", "vulnerable"],
    ["sub.inherit.test", "quarantine", "valid", "missing", "partial"],
    ["dmarcbad.test", "invalid", "valid", "missing", "vulnerable"],
    ["dmarctwo.test", "invalid", "valid", "missing", "vulnerable"],
    ["dmarcorder.test", "invalid", "valid", "missing", "vulnerable"],
    ["dmarcbis.test", "reject", "valid", "missing", "partial"],
  ])("%s: DMARC %s, SPF %s, DKIM %s → %s", async (domain, dmarc, spf, dkim, overall) => {
    const a = await analyzeDomain(resolver, domain);
    expect([a.dmarc.status, a.spf.status, a.dkim.status, a.overallStatus]).toEqual([dmarc, spf, dkim, overall] as any);
    expect(a.incomplete).toBe(false);
  });

  test("SPF: the include chain one past the limit counts 11, exactly ten counts 10", async () => {
    const over = await analyzeDomain(resolver, "toomany.test");
    expect(over.spf.details.lookupCount).toBe(11);
    expect(over.spf.errorMessage).toContain("11 DNS lookups");
    expect(over.spf.details.tree?.children[0]?.totalLookups).toBe(10);
    expect((await analyzeDomain(resolver, "ten.test")).spf.details.lookupCount).toBe(10);
  });

  test("SPF: loop, void lookups, two records, mx names, include without SPF and syntax errors are named", async () => {
    expect(codes((await analyzeDomain(resolver, "loop.test")).spf.findings)).toContain("spf.loop");
    const v = await analyzeDomain(resolver, "void.test");
    expect(v.spf.details.voidLookups).toBe(3);
    expect(codes(v.spf.findings)).toContain("spf.void_lookups");
    expect(codes((await analyzeDomain(resolver, "twospf.test")).spf.findings)).toContain("spf.multiple_records");
    expect(codes((await analyzeDomain(resolver, "mxmany.test")).spf.findings)).toContain("spf.mx_too_many");
    expect(codes((await analyzeDomain(resolver, "badinclude.test")).spf.findings)).toContain("spf.include_without_spf");
    expect(codes((await analyzeDomain(resolver, "spfsyntax.test")).spf.findings)).toEqual(expect.arrayContaining(["spf.bad_ip4", "spf.bad_ip6", "spf.unknown_mechanism", "spf.missing_include_domain"]));
  });

  test("SPF warnings: +all, ?all with ptr, no all", async () => {
    expect(codes((await analyzeDomain(resolver, "plusall.test")).spf.findings)).toContain("spf.plus_all");
    expect(codes((await analyzeDomain(resolver, "ptr.test")).spf.findings)).toEqual(expect.arrayContaining(["spf.ptr", "spf.neutral_all"]));
    const noAll = await analyzeDomain(resolver, "noall.test");
    expect(noAll.spf.warnings.length).toBeGreaterThan(0);
    expect(codes(noAll.spf.findings)).toContain("spf.no_all");
  });

  test("DKIM: 2048-bit key split over strings, 512-bit weak, ed25519, revoked, a selector given by the user", async () => {
    const good = await analyzeDomain(resolver, "good.test");
    expect(good.dkim.details.keys).toEqual([expect.objectContaining({ selector: "selector1", keyType: "rsa", bits: 2048, status: "valid" })]);
    expect((await analyzeDomain(resolver, "weak.test")).dkim.details.keys[0]).toMatchObject({ bits: 512, status: "weak key" });
    expect((await analyzeDomain(resolver, "ed.test")).dkim.details.keys[0]).toMatchObject({ keyType: "ed25519", status: "valid" });
    expect((await analyzeDomain(resolver, "revoked.test")).dkim.details.keys[0]).toMatchObject({ status: "revoked" });
    expect((await analyzeDomain(resolver, "custom.test")).dkim.status).toBe("missing");
    expect((await analyzeDomain(resolver, "custom.test", { selectors: ["brand2024"] })).dkim.status).toBe("valid");
    expect((await analyzeDomain(resolver, "custom.test", { reportSelectors: ["brand2024"] })).dkim.status).toBe("valid");
  });

  test("DMARC: inherited record, unauthorized and authorized external rua", async () => {
    const sub = await analyzeDomain(resolver, "sub.inherit.test");
    expect(sub.dmarc.details).toMatchObject({ inherited: true, source: "_dmarc.inherit.test" });
    const ext = await analyzeDomain(resolver, "extrua.test");
    expect(ext.dmarc.status).toBe("quarantine");
    expect(codes(ext.dmarc.findings)).toContain("dmarc.external_unauthorized");
    expect(ext.dmarc.details.rua).toEqual([expect.objectContaining({ host: "collector.test", external: true, authorized: false }), expect.objectContaining({ host: "extrua.test", external: false, size: "10m" })]);
    const auth = await analyzeDomain(resolver, "authrua.test");
    expect(codes(auth.dmarc.findings)).not.toContain("dmarc.external_unauthorized");
    expect(auth.dmarc.details.rua[0]?.authorized).toBe(true);
  });

  test("extras: MX, MTA-STS, TLS-RPT and BIMI", async () => {
    const good = await analyzeDomain(resolver, "good.test");
    expect([good.extras.mx.status, good.extras.mtaSts.status, good.extras.tlsRpt.status, good.extras.bimi.status]).toEqual(["configured", "configured", "configured", "configured"]);
    const bare = await analyzeDomain(resolver, "missing.test");
    expect([bare.extras.mx.status, bare.extras.mtaSts.status, bare.extras.tlsRpt.status, bare.extras.bimi.status]).toEqual(["missing", "missing", "missing", "missing"]);
  });

  test("a DNS server failure is reported as could not check, not as a missing or invalid record", async () => {
    const a = await analyzeDomain(resolver, "broken.test");
    expect(a.incomplete).toBe(true);
    expect(a.spf.status).toBe("unchecked");
    expect(a.overallStatus).toBe("unchecked");
    expect(codes(a.spf.findings)).toEqual(["dns.not_answered"]);
    expect(a.spf.findings[0]!.message).toContain("Could not check (DNS server did not answer)");
  });
});

describe("POST /api/dns-lookup", () => {
  test("answers SPEC §3's shape plus statuses, warnings, details and extras", async () => {
    const res = await t.json("POST", "/api/dns-lookup", { body: { domain: "  Good.TEST " } });
    expect(res.status).toBe(200);
    expect(res.body.domain).toBe("good.test");
    for (const kind of ["dmarc", "spf", "dkim"]) {
      expect(Object.keys(res.body[kind])).toEqual(expect.arrayContaining(["recordValue", "isValid", "errorMessage", "status", "warnings", "details"]));
    }
    expect(res.body.dmarc).toMatchObject({ isValid: true, status: "reject", errorMessage: null, recordValue: expect.stringContaining("p=reject") });
    expect(res.body.spf.details.lookupCount).toBe(1);
    expect(res.body.dkim.details.keys[0].bits).toBe(2048);
    expect(res.body.extras.mx.status).toBe("configured");
  });

  test("an invalid record carries its error message", async () => {
    const res = await t.json("POST", "/api/dns-lookup", { body: { domain: "toomany.test" } });
    expect(res.body.spf).toMatchObject({ isValid: false, status: "too many lookups", errorMessage: expect.stringContaining("11 DNS lookups") });
    expect(res.body.dkim).toMatchObject({ isValid: false, status: "missing" });
  });

  test.each([
    [{ domain: "" }, "Please enter a domain name"],
    [{ domain: "   " }, "Please enter a domain name"],
    [{}, "Please enter a domain name"],
    [{ domain: "not a domain" }, "Please enter a valid domain name (e.g., example.com)"],
    [{ domain: "example.c0m" }, "Please enter a valid domain name (e.g., example.com)"],
    [{ domain: "-bad.com" }, "Please enter a valid domain name (e.g., example.com)"],
    [{ domain: "good.test", selectors: Array.from({ length: 11 }, (_, i) => `s${i}`) }, "Enter at most 10 DKIM selectors."],
    [{ domain: "good.test", selectors: ["bad selector"] }, "A DKIM selector is letters, digits, hyphens and underscores, separated by dots (e.g. selector1)."],
  ])("%j → 400 %s", async (body, message) => {
    const res = await t.json("POST", "/api/dns-lookup", { body });
    expect(res.status).toBe(400);
    expect(res.body.error.message).toBe(message);
  });

  test("user selectors are tried", async () => {
    const res = await t.json("POST", "/api/dns-lookup", { body: { domain: "custom.test", selectors: ["brand2024"] } });
    expect(res.body.dkim.status).toBe("valid");
    expect(res.body.dkim.details.selectorsTried[0]).toBe("brand2024");
  });

  test("is rate-limited per client", async () => {
    const limited = await makeTestApp({ deps: { resolver } });
    try {
      const headers = { "x-forwarded-for": "203.0.113.5" };
      let last = 0;
      for (let i = 0; i <= DNS_LOOKUP_LIMIT.perWindow; i++) last = (await limited.json("POST", "/api/dns-lookup", { body: { domain: "missing.test" }, headers })).status;
      expect(last).toBe(429);
    } finally {
      limited.close();
    }
  });

  test("without a resolver the server says DNS lookups are unavailable", async () => {
    const bare = await makeTestApp();
    try {
      const res = await bare.json("POST", "/api/dns-lookup", { body: { domain: "good.test" } });
      expect(res.status).toBe(503);
    } finally {
      bare.close();
    }
  });
});
