import { describe, expect, test } from "bun:test";
import { evaluateDmarc, organizationalDomain, parseDmarcRecord } from "./dmarc";
import type { TxtLookup } from "./types";

const txt = (...records: string[]): TxtLookup => ({ status: records.length ? "ok" : "nodata", records: records.map((text) => ({ strings: [text], text })), ttl: 300 });
const codes = (r: { findings: { code: string }[] }) => r.findings.map((f) => f.code);

describe("DMARC record parsing", () => {
  test("a complete RFC 7489 record is valid and every tag is read", () => {
    const p = parseDmarcRecord("v=DMARC1; p=reject; sp=quarantine; pct=100; adkim=s; aspf=r; fo=1:d; rf=afrf; ri=86400; rua=mailto:a@example.com!10m; ruf=mailto:f@example.com", "example.com");
    expect(p.findings.filter((f) => f.level === "error")).toEqual([]);
    expect(p.policy).toBe("reject");
    expect(p.subdomainPolicy).toBe("quarantine");
    expect(p.rua[0]).toMatchObject({ address: "a@example.com", size: "10m", external: false });
  });

  test("DMARCbis tags np, psd and t are known; t=y warns", () => {
    const p = parseDmarcRecord("v=DMARC1; p=reject; np=reject; psd=n; t=y; rua=mailto:a@example.com", "example.com");
    expect(codes(p)).toEqual(["dmarc.testing"]);
    expect(p.nonExistentPolicy).toBe("reject");
  });

  test.each([
    ["v=DMARC1; p=maybe", "dmarc.bad_p"],
    ["v=DMARC1; p=none; sp=block", "dmarc.bad_sp"],
    ["v=DMARC1; p=none; np=x", "dmarc.bad_np"],
    ["v=DMARC1; p=reject; pct=101", "dmarc.bad_pct"],
    ["v=DMARC1; p=reject; pct=abc", "dmarc.bad_pct"],
    ["v=DMARC1; p=reject; adkim=x", "dmarc.bad_adkim"],
    ["v=DMARC1; p=reject; aspf=relaxed", "dmarc.bad_aspf"],
    ["v=DMARC1; p=reject; fo=2", "dmarc.bad_fo"],
    ["v=DMARC1; p=reject; rf=iodef", "dmarc.bad_rf"],
    ["v=DMARC1; p=reject; ri=daily", "dmarc.bad_ri"],
    ["v=DMARC1; p=reject; psd=maybe", "dmarc.bad_psd"],
    ["v=DMARC1; p=reject; t=1", "dmarc.bad_t"],
    ["v=DMARC1; p=reject; rua=https://x.example.com", "dmarc.rua_not_mailto"],
    ["v=DMARC1; p=reject; rua=mailto:a@example.com!ten", "dmarc.rua_size"],
    ["v=DMARC1; p=reject; ruf=mailto:not-an-address", "dmarc.ruf_bad_address"],
    ["v=DMARC1; p=reject; p=none", "dmarc.duplicate_tag"],
    ["v=DMARC1; rua=mailto:a@example.com", "dmarc.missing_p"],
    ["p=reject; v=DMARC1", "dmarc.version_first"],
    ["v=DMARC1; p=reject; oops", "dmarc.syntax"],
  ])("%s → %s (error)", (record, code) => {
    const p = parseDmarcRecord(record, "example.com");
    expect(p.findings.find((f) => f.code === code)?.level).toBe("error");
  });

  test("unknown tags are warnings; p=none and pct<100 warn", () => {
    expect(parseDmarcRecord("v=DMARC1; p=reject; foo=bar; rua=mailto:a@example.com", "example.com").findings.map((f) => [f.code, f.level])).toEqual([["dmarc.unknown_tag", "warning"]]);
    expect(codes(parseDmarcRecord("v=DMARC1; p=none; rua=mailto:a@example.com", "example.com"))).toContain("dmarc.policy_none");
    expect(codes(parseDmarcRecord("v=DMARC1; p=quarantine; pct=20; rua=mailto:a@example.com", "example.com"))).toContain("dmarc.partial_pct");
  });

  test("an address at another organizational domain is external", () => {
    const p = parseDmarcRecord("v=DMARC1; p=none; rua=mailto:a@reports.example.com,mailto:b@collector.example.net", "example.com");
    expect(p.rua.map((u) => u.external)).toEqual([false, true]);
  });

  test("organizational domain comes from the Public Suffix List", () => {
    expect(organizationalDomain("mail.shop.example.co.uk")).toBe("example.co.uk");
    expect(organizationalDomain("example.com")).toBe("example.com");
  });

  test("organizational domains stay right past the remembered names (10,000)", () => {
    for (let i = 0; i < 12_000; i++) expect(organizationalDomain(`host${i}.client${i}.co.uk`)).toBe(`client${i}.co.uk`);
    expect(organizationalDomain("mail.shop.example.co.uk")).toBe("example.co.uk");
    expect(organizationalDomain("a.b.github.io")).toBe("github.io");
  });
});

describe("DMARC evaluation", () => {
  test("status is the policy; no record is missing; two records are invalid", () => {
    expect(evaluateDmarc({ domain: "example.com", own: txt("v=DMARC1; p=quarantine; rua=mailto:a@example.com") }).status).toBe("quarantine");
    expect(evaluateDmarc({ domain: "example.com", own: txt() }).status).toBe("missing");
    expect(evaluateDmarc({ domain: "example.com", own: txt("unrelated") }).status).toBe("missing");
    const two = evaluateDmarc({ domain: "example.com", own: txt("v=DMARC1; p=none", "v=DMARC1; p=reject") });
    expect(two.status).toBe("invalid");
    expect(codes(two)).toContain("dmarc.multiple_records");
  });

  test("a subdomain without a record inherits the organizational record's sp", () => {
    const r = evaluateDmarc({ domain: "mail.example.com", own: txt(), organizational: { domain: "example.com", lookup: txt("v=DMARC1; p=reject; sp=quarantine; rua=mailto:a@example.com") } });
    expect(r).toMatchObject({ status: "quarantine", inherited: true, source: "_dmarc.example.com" });
    expect(codes(r)).toContain("dmarc.inherited");
  });

  test("an external rua without the destination's authorization record warns", () => {
    const record = "v=DMARC1; p=reject; rua=mailto:r@collector.example.net";
    const denied = evaluateDmarc({ domain: "example.com", own: txt(record), authorizations: { "collector.example.net": txt() } });
    expect(denied.status).toBe("reject");
    expect(denied.findings.find((f) => f.code === "dmarc.external_unauthorized")?.message).toContain("example.com._report._dmarc.collector.example.net");
    expect(denied.parsed?.rua[0]?.authorized).toBe(false);
    const allowed = evaluateDmarc({ domain: "example.com", own: txt(record), authorizations: { "collector.example.net": txt("v=DMARC1") } });
    expect(codes(allowed)).not.toContain("dmarc.external_unauthorized");
    expect(allowed.parsed?.rua[0]?.authorized).toBe(true);
  });

  test("a failed lookup is invalid, not missing", () => {
    expect(evaluateDmarc({ domain: "example.com", own: { status: "servfail", records: [], ttl: 0 } }).status).toBe("invalid");
  });
});
