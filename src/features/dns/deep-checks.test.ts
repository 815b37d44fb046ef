/**
 * The deep DNS checks, one test per finding: DMARCbis (tree walk, psd, np, t, removed tags,
 * misplaced and several records), MTA-STS (policy file over HTTPS with a test CA), TLS-RPT,
 * MX hosts (resolvable, STARTTLS on local SMTP servers, certificate names and expiry), DNSSEC
 * (DNSKEY and the resolver's AD bit) and BIMI (the SVG Tiny PS essentials) — against the
 * project's test DNS server, which resolves every probed name to a loopback address.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { SMTPServer } from "smtp-server";
import { makeTestApp, type TestApp } from "../../../tests/support/app";
import { startDnsServer, type TestDnsServer, type Zone } from "../../../tests/support/dns-server";
import { createTestCa, type TestCa } from "../../../tests/support/test-ca";
import { analyzeDomain, type DnsAnalysis } from "./analyze";
import { formatAnalysis } from "./format";
import type { ProbeOptions } from "./probes";
import { createResolver, type DnsResolver } from "./resolver";

const GOOD_SVG = `<?xml version="1.0" encoding="UTF-8"?>
<svg xmlns="http://www.w3.org/2000/svg" version="1.2" baseProfile="tiny-ps" viewBox="0 0 100 100"><title>Brand</title><circle cx="50" cy="50" r="40" fill="#c00"/></svg>`;
const BAD_SVG = `<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" version="1.1" baseProfile="full" x="0" y="0"><script>alert(1)</script><image xlink:href="https://cdn.example/logo.png"/></svg>`;
const BIG_SVG = GOOD_SVG.replace("</svg>", `<desc>${"x".repeat(33 * 1024)}</desc></svg>`);

function policy(lines: string[]): string {
  return lines.join("\r\n") + "\r\n";
}

let dns: TestDnsServer;
let resolver: DnsResolver;
let ca: TestCa;
let https: ReturnType<typeof Bun.serve>;
const smtpServers: SMTPServer[] = [];
let smtpPort = 0;
let probes: ProbeOptions;

/** SMTP servers on one port at several loopback addresses: 127.0.0.1 STARTTLS with a valid certificate, .2 no STARTTLS, .3 an expired certificate, .4 a certificate for another name, .5 nothing listening. */
async function startSmtp() {
  const good = ca.leaf(["mx.smtp-good.test"]);
  const expired = ca.leaf(["mx.smtp-expired.test"], { start: "20200101000000Z", end: "20200201000000Z" });
  const other = ca.leaf(["elsewhere.test"]);
  const soon = ca.leaf(["mx.smtp-soon.test"], { days: 3 });
  const specs: [string, Partial<ConstructorParameters<typeof SMTPServer>[0]>][] = [
    ["127.0.0.1", { cert: good.cert, key: good.key }],
    ["127.0.0.2", { disabledCommands: ["STARTTLS"] }],
    ["127.0.0.3", { cert: expired.cert, key: expired.key }],
    ["127.0.0.4", { cert: other.cert, key: other.key }],
    ["127.0.0.6", { cert: soon.cert, key: soon.key }],
  ];
  for (let attempt = 0; attempt < 20; attempt++) {
    const port = 30000 + Math.floor(Math.random() * 20000);
    const started: SMTPServer[] = [];
    try {
      for (const [host, options] of specs) {
        const server = new SMTPServer({ authOptional: true, logger: false, ...options });
        server.on("error", () => {});
        await new Promise<void>((resolve, reject) => {
          server.server.once("error", reject);
          server.listen(port, host, () => resolve());
        });
        started.push(server);
      }
      smtpServers.push(...started);
      return port;
    } catch {
      for (const s of started) s.close();
    }
  }
  throw new Error("could not start the test SMTP servers");
}

function zone(): Zone {
  const local = { A: ["127.0.0.1"] };
  const key = "mdsswUyr3DPW132mOi8V9xESWE8jTo0dxCjjnopKl+GqJxpVXckHAeF+KkxLbxILfDLUT0rAK9iUzy1L53eKGQ==";
  const sts = (name: string) => ({ [`_mta-sts.${name}`]: { TXT: ["v=STSv1; id=2026"] }, [`mta-sts.${name}`]: local });
  return {
    // MTA-STS: a good policy covering the MX by a wildcard; testing + short max_age + an MX it does not cover; a certificate for another name; no host; a redirect; a broken file
    "sts-good.test": { MX: [{ exchange: "mx.sts-good.test", priority: 10 }] },
    "mx.sts-good.test": { A: ["127.0.0.5"] },
    ...sts("sts-good.test"),
    "sts-testing.test": { MX: [{ exchange: "mx.sts-testing.test", priority: 10 }] },
    "mx.sts-testing.test": { A: ["127.0.0.5"] },
    ...sts("sts-testing.test"),
    "sts-badcert.test": {},
    ...sts("sts-badcert.test"),
    "sts-nohost.test": {},
    "_mta-sts.sts-nohost.test": { TXT: ["v=STSv1; id=1"] },
    "sts-redirect.test": {},
    ...sts("sts-redirect.test"),
    "sts-broken.test": {},
    ...sts("sts-broken.test"),
    "_smtp._tls.sts-broken.test": { TXT: ["v=TLSRPTv1; rua=ftp://reports.example"] },
    // MX hosts: STARTTLS good, none, expired certificate, another name, nothing listening, no address, expiring soon
    "smtp-good.test": { MX: [{ exchange: "mx.smtp-good.test", priority: 10 }] },
    "mx.smtp-good.test": { A: ["127.0.0.1"] },
    "smtp-plain.test": { MX: [{ exchange: "mx.smtp-plain.test", priority: 10 }] },
    "mx.smtp-plain.test": { A: ["127.0.0.2"] },
    "smtp-expired.test": { MX: [{ exchange: "mx.smtp-expired.test", priority: 10 }] },
    "mx.smtp-expired.test": { A: ["127.0.0.3"] },
    "smtp-mismatch.test": { MX: [{ exchange: "mx.smtp-mismatch.test", priority: 10 }] },
    "mx.smtp-mismatch.test": { A: ["127.0.0.4"] },
    "smtp-silent.test": { MX: [{ exchange: "mx.smtp-silent.test", priority: 10 }] },
    "mx.smtp-silent.test": { A: ["127.0.0.5"] },
    "smtp-noaddr.test": { MX: [{ exchange: "gone.smtp-noaddr.test", priority: 10 }] },
    "smtp-soon.test": { MX: [{ exchange: "mx.smtp-soon.test", priority: 10 }] },
    "mx.smtp-soon.test": { A: ["127.0.0.6"] },
    // DNSSEC: signed and validated, signed without validation, a subdomain of a signed zone, unsigned
    "signed.test": { DNSKEY: [key], authenticated: true },
    "sub.signed.test": { A: ["192.0.2.1"] },
    "signednv.test": { DNSKEY: [key] },
    "unsigned.test": { A: ["192.0.2.1"] },
    // BIMI: a good logo, a broken one, one over 32 KB
    "bimi-good.test": {},
    "default._bimi.bimi-good.test": { TXT: ["v=BIMI1; l=https://logo.bimi-good.test/logo.svg; a=https://logo.bimi-good.test/vmc.pem"] },
    "logo.bimi-good.test": local,
    "bimi-bad.test": {},
    "default._bimi.bimi-bad.test": { TXT: ["v=BIMI1; l=https://logo.bimi-bad.test/logo.svg"] },
    "logo.bimi-bad.test": local,
    "bimi-big.test": {},
    "default._bimi.bimi-big.test": { TXT: ["v=BIMI1; l=https://logo.bimi-big.test/logo.svg"] },
    "logo.bimi-big.test": local,
    // DMARCbis: tree walk (inherited several labels up), psd=y, removed tags, misplaced records, np and t
    "walk.test": {},
    "_dmarc.walk.test": { TXT: ["v=DMARC1; p=reject; sp=quarantine; rua=mailto:d@walk.test"] },
    "a.b.c.walk.test": { A: ["192.0.2.1"] },
    "_dmarc.psd.test": { TXT: ["v=DMARC1; p=reject; psd=y"] },
    "shop.brand.psd.test": { A: ["192.0.2.1"] },
    "_dmarc.corp.psdn.test": { TXT: ["v=DMARC1; p=quarantine; psd=n; rua=mailto:d@corp.psdn.test"] },
    "_dmarc.psdn.test": { TXT: ["v=DMARC1; p=reject; psd=y"] },
    "mail.corp.psdn.test": { A: ["192.0.2.1"] },
    "oldtags.test": {},
    "_dmarc.oldtags.test": { TXT: ["v=DMARC1; p=reject; pct=100; ri=3600; rf=afrf; rua=mailto:d@oldtags.test"] },
    "apex.test": { TXT: ["v=DMARC1; p=reject"] },
    "dmarc.apex.test": { TXT: ["v=DMARC1; p=reject"] },
    "two.test": {},
    "_dmarc.two.test": { TXT: ["v=DMARC1; p=none", "v=DMARC1; p=reject"] },
    "bis.test": {},
    "_dmarc.bis.test": { TXT: ["v=DMARC1; p=reject; np=reject; t=y; rua=mailto:d@bis.test"] },
  };
}

beforeAll(async () => {
  ca = createTestCa();
  dns = await startDnsServer(zone());
  resolver = createResolver({ servers: [{ host: dns.host, port: dns.port }], timeoutMs: 1000 });
  const leaves = Object.fromEntries(
    ["sts-good.test", "sts-testing.test", "sts-redirect.test", "sts-broken.test"].map((d) => [`mta-sts.${d}`, ca.leaf([`mta-sts.${d}`])]),
  );
  const wrongName = ca.leaf(["www.example.test"]);
  const logos = ca.leaf(["logo.bimi-good.test", "logo.bimi-bad.test", "logo.bimi-big.test"]);
  const tls = [
    ...Object.entries(leaves).map(([serverName, leaf]) => ({ serverName, ...leaf })),
    { serverName: "mta-sts.sts-badcert.test", ...wrongName },
    ...["logo.bimi-good.test", "logo.bimi-bad.test", "logo.bimi-big.test"].map((serverName) => ({ serverName, ...logos })),
  ];
  const text = (body: string, type = "text/plain") => new Response(body, { headers: { "content-type": type } });
  https = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    tls,
    fetch(request) {
      const host = new URL(request.url).hostname;
      switch (host) {
        case "mta-sts.sts-good.test":
          return text(policy(["version: STSv1", "mode: enforce", "mx: *.sts-good.test", "max_age: 604800"]));
        case "mta-sts.sts-testing.test":
          return text(policy(["version: STSv1", "mode: testing", "mx: mail.elsewhere.test", "max_age: 3600"]));
        case "mta-sts.sts-redirect.test":
          return new Response(null, { status: 301, headers: { location: "https://www.example.test/" } });
        case "mta-sts.sts-broken.test":
          return text("version: STSv2\nmode: maybe\nthis is not a line\n", "text/html");
        case "logo.bimi-good.test":
          return text(GOOD_SVG, "image/svg+xml");
        case "logo.bimi-bad.test":
          return text(BAD_SVG, "image/svg+xml");
        case "logo.bimi-big.test":
          return text(BIG_SVG, "image/svg+xml");
      }
      return new Response("not found", { status: 404 });
    },
  });
  smtpPort = await startSmtp();
  probes = { extraCa: [ca.caPem], allowPrivate: true, smtpPort, httpsPort: https.port!, timeoutMs: 3000 };
  // openssl makes a CA and ten certificates: allow for a busy machine
}, 60_000);

afterAll(async () => {
  https?.stop(true);
  for (const s of smtpServers) s.close();
  await dns?.close();
  ca?.cleanup();
});

const analyses = new Map<string, Promise<DnsAnalysis>>();
const analyze = (domain: string) => {
  if (!analyses.has(domain)) analyses.set(domain, analyzeDomain(resolver, domain, { probes }));
  return analyses.get(domain)!;
};
const codesOf = (findings: { code: string; level: string }[]) => findings.map((f) => `${f.level} ${f.code}`);

describe("MTA-STS policy file", () => {
  test("a good policy: parsed, every MX covered by a wildcard pattern, no errors", async () => {
    const a = await analyze("sts-good.test");
    expect(a.extras.mtaSts.status).toBe("configured");
    expect(a.extras.mtaSts.details?.policy).toEqual({ version: "STSv1", mode: "enforce", maxAge: 604800, mx: ["*.sts-good.test"] });
    expect(a.extras.mtaSts.findings.filter((f) => f.level !== "info")).toEqual([]);
  });
  test("testing mode and a short max_age warn; an MX no pattern matches is an error", async () => {
    const a = await analyze("sts-testing.test");
    expect(codesOf(a.extras.mtaSts.findings)).toEqual(expect.arrayContaining(["warning mta_sts.mode_testing", "warning mta_sts.max_age_short", "error mta_sts.mx_not_covered"]));
    expect(a.extras.mtaSts.status).toBe("invalid");
  });
  test("a certificate for another name is a finding, not a crash", async () => {
    const a = await analyze("sts-badcert.test");
    expect(codesOf(a.extras.mtaSts.findings)).toContain("error mta_sts.policy_certificate");
  });
  test("no host for mta-sts.<domain>: unreachable", async () => {
    expect(codesOf((await analyze("sts-nohost.test")).extras.mtaSts.findings)).toContain("error mta_sts.policy_unreachable");
  });
  test("a redirect is not followed", async () => {
    expect(codesOf((await analyze("sts-redirect.test")).extras.mtaSts.findings)).toContain("error mta_sts.policy_redirect");
  });
  test("a broken file: version, mode, max_age, a malformed line, the content type", async () => {
    const codes = codesOf((await analyze("sts-broken.test")).extras.mtaSts.findings);
    expect(codes).toEqual(expect.arrayContaining(["error mta_sts.policy_version", "error mta_sts.policy_mode", "error mta_sts.max_age_invalid", "error mta_sts.policy_syntax", "warning mta_sts.policy_content_type"]));
  });
  test("TLS-RPT: a rua that is neither mailto: nor https: is an error", async () => {
    expect(codesOf((await analyze("sts-broken.test")).extras.tlsRpt.findings)).toContain("error tls_rpt.bad_rua");
  });
  test("without permission, a policy host on a loopback address is not fetched (no SSRF): not checked", async () => {
    const a = await analyzeDomain(resolver, "sts-good.test", { probes: { ...probes, allowPrivate: false } });
    expect(codesOf(a.extras.mtaSts.findings)).toContain("warning mta_sts.policy_not_checked");
    expect(a.extras.mtaSts.findings.find((f) => f.code === "mta_sts.policy_not_checked")?.message).toContain("127.0.0.1 (loopback)");
    expect(a.extras.mtaSts.status).toBe("configured");
  });
});

describe("MX hosts and STARTTLS", () => {
  const mxCodes = async (domain: string) => codesOf((await analyze(domain)).extras.mx.findings);
  test("STARTTLS with a valid certificate is shown as info", async () => {
    const a = await analyze("smtp-good.test");
    expect(codesOf(a.extras.mx.findings)).toEqual(["info mx.starttls"]);
    expect(a.extras.mx.details?.hostChecks).toEqual([expect.objectContaining({ host: "mx.smtp-good.test", resolvable: "ok", tls: expect.objectContaining({ outcome: "starttls" }) })]);
  });
  test("no STARTTLS offered warns", async () => expect(await mxCodes("smtp-plain.test")).toEqual(["warning mx.no_starttls"]));
  test("an expired certificate is an error", async () => expect(await mxCodes("smtp-expired.test")).toContain("error mx.cert_expired"));
  test("a certificate for another name warns", async () => expect(await mxCodes("smtp-mismatch.test")).toContain("warning mx.cert_name_mismatch"));
  test("a certificate expiring within 14 days warns", async () => expect(await mxCodes("smtp-soon.test")).toContain("warning mx.cert_expiring"));
  test("a host that does not answer is 'could not check', not a failure of the domain", async () => {
    const a = await analyze("smtp-silent.test");
    expect(codesOf(a.extras.mx.findings)).toEqual(["info mx.host_not_checked"]);
    expect(a.extras.mx.status).toBe("configured");
  });
  test("an MX host without an address is an error", async () => {
    const a = await analyze("smtp-noaddr.test");
    expect(codesOf(a.extras.mx.findings)).toEqual(["error mx.host_unresolvable"]);
    expect(a.extras.mx.status).toBe("invalid");
  });
  test("a trusted-only check: without the test CA the certificate is untrusted", async () => {
    const a = await analyzeDomain(resolver, "smtp-good.test", { probes: { ...probes, extraCa: undefined } });
    expect(codesOf(a.extras.mx.findings)).toEqual(["warning mx.cert_untrusted"]);
  });
});

describe("DNSSEC (shown, never required)", () => {
  test("signed and validated by the resolver (AD bit)", async () => {
    const a = await analyze("signed.test");
    expect([a.extras.dnssec.status, codesOf(a.extras.dnssec.findings)]).toEqual(["configured", ["info dnssec.validated"]]);
  });
  test("a subdomain of a signed zone is signed", async () => {
    expect((await analyze("sub.signed.test")).extras.dnssec.details).toEqual({ zone: "signed.test", authenticated: true });
  });
  test("signed, the resolver does not validate", async () => expect(codesOf((await analyze("signednv.test")).extras.dnssec.findings)).toEqual(["info dnssec.signed"]));
  test("unsigned is info", async () => expect(codesOf((await analyze("unsigned.test")).extras.dnssec.findings)).toEqual(["info dnssec.unsigned"]));
});

describe("BIMI logo", () => {
  test("an SVG Tiny PS logo with a VMC passes", async () => {
    const a = await analyze("bimi-good.test");
    expect(a.extras.bimi.details).toMatchObject({ svgChecked: true });
    expect(codesOf(a.extras.bimi.findings).filter((c) => c.startsWith("error"))).toEqual([]);
  });
  test("profile, version, title, script, external reference and root position are named; no VMC is info", async () => {
    const codes = codesOf((await analyze("bimi-bad.test")).extras.bimi.findings);
    expect(codes).toEqual(expect.arrayContaining(["error bimi.svg_profile", "error bimi.svg_version", "error bimi.svg_no_title", "error bimi.svg_script", "error bimi.svg_external_ref", "error bimi.svg_root_position", "info bimi.no_certificate"]));
  });
  test("over 32 KB is an error", async () => expect(codesOf((await analyze("bimi-big.test")).extras.bimi.findings)).toContain("error bimi.svg_too_large"));
});

describe("DMARCbis", () => {
  test("the tree walk finds the policy several labels up; the organizational domain is the record's", async () => {
    const a = await analyze("a.b.c.walk.test");
    expect(a.dmarc.details).toMatchObject({ inherited: true, source: "_dmarc.walk.test", organizationalDomain: "walk.test" });
    expect(a.dmarc.status).toBe("quarantine");
    expect(a.dmarc.details.treeWalk.map((s) => s.domain)).toEqual(["a.b.c.walk.test", "b.c.walk.test", "c.walk.test", "walk.test", "test"]);
  });
  test("psd=y: the organizational domain is one label below the public suffix domain", async () => {
    const a = await analyze("shop.brand.psd.test");
    expect(a.dmarc.details).toMatchObject({ source: "_dmarc.psd.test", organizationalDomain: "brand.psd.test" });
    expect(codesOf(a.dmarc.findings)).toContain("info dmarc.organizational_domain");
  });
  test("psd=n: the record's domain is the organizational domain, whatever is above it", async () => {
    expect((await analyze("mail.corp.psdn.test")).dmarc.details.organizationalDomain).toBe("corp.psdn.test");
  });
  test("pct, ri and rf are removed tags: one warning each, with the fix", async () => {
    const removed = (await analyze("oldtags.test")).dmarc.findings.filter((f) => f.code === "dmarc.removed_tag");
    expect(removed.map((f) => [f.level, f.message.split("=")[0]])).toEqual([
      ["warning", '"pct'],
      ["warning", '"ri'],
      ["warning", '"rf'],
    ]);
    expect(removed.every((f) => !!f.fix)).toBe(true);
  });
  test("a DMARC record at the apex and at dmarc.<domain> is on the wrong name", async () => {
    const a = await analyze("apex.test");
    expect(a.dmarc.status).toBe("missing");
    expect(codesOf(a.dmarc.findings).filter((c) => c === "warning dmarc.wrong_name")).toHaveLength(2);
  });
  test("several records are an error", async () => expect(codesOf((await analyze("two.test")).dmarc.findings)).toContain("error dmarc.multiple_records"));
  test("np and t are read", async () => {
    const a = await analyze("bis.test");
    expect(a.dmarc.details).toMatchObject({ nonExistentPolicy: "reject", testing: true });
    expect(codesOf(a.dmarc.findings)).toContain("warning dmarc.testing");
  });
});

describe("the same findings in the API, the analysis and dmarcwarden check", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await makeTestApp({ deps: { resolver, probes } });
  });
  afterAll(() => t?.close());
  test("POST /api/dns-lookup answers the analysis' findings; the text output prints each", async () => {
    for (const domain of ["sts-testing.test", "smtp-plain.test", "bimi-bad.test", "oldtags.test", "signed.test"]) {
      const direct = await analyze(domain);
      const res = await t.json("POST", "/api/dns-lookup", { body: { domain } });
      expect(res.status).toBe(200);
      for (const part of ["mx", "mtaSts", "tlsRpt", "bimi", "dnssec"] as const) expect(codesOf(res.body.extras[part].findings)).toEqual(codesOf(direct.extras[part].findings));
      expect(codesOf(res.body.dmarc.findings)).toEqual(codesOf(direct.dmarc.findings));
      const text = formatAnalysis(direct);
      for (const f of [...direct.dmarc.findings, ...Object.values(direct.extras).flatMap((e) => e.findings)]) expect(text).toContain(f.message);
    }
  });
});
