import { describe, expect, test } from "bun:test";
import { isSpfRecord, parseSpf } from "./spf";
import { summarizeSpf, type SpfNode } from "./spf-tree";

const errorCodes = (record: string) => parseSpf(record, "example.com").findings.filter((f) => f.level === "error").map((f) => f.code);

describe("SPF parsing (RFC 7208)", () => {
  test("every mechanism and modifier is read, with qualifiers and CIDR lengths", () => {
    const p = parseSpf("v=spf1 +a -a:mail.example.com/24 ~mx/24//64 ?mx:example.com ptr ip4:192.0.2.0/24 ip6:2001:db8::/32 include:_spf.example.net exists:%{i}._spf.example.com redirect=_spf.example.org exp=explain.example.com", "example.com");
    expect(p.findings.filter((f) => f.level === "error")).toEqual([]);
    expect(p.mechanisms.map((m) => `${m.qualifier}${m.name}`)).toEqual(["+a", "-a", "~mx", "?mx", "+ptr", "+ip4", "+ip6", "+include", "+exists"]);
    expect(p.mechanisms[2]).toMatchObject({ cidr4: 24, cidr6: 64 });
    expect(p.redirect).toBe("_spf.example.org");
    expect(p.exp).toBe("explain.example.com");
    // a, a, mx, mx, ptr, include, exists, redirect
    expect(p.lookupTerms).toBe(8);
  });

  test("only v=spf1 followed by a space or the end is an SPF record", () => {
    expect(isSpfRecord("v=spf1 -all")).toBe(true);
    expect(isSpfRecord("v=spf1")).toBe(true);
    expect(isSpfRecord("v=spf10 -all")).toBe(false);
    expect(isSpfRecord("spf1 -all")).toBe(false);
  });

  test.each([
    ["v=spf1 ip4:999.1.1.1 -all", "spf.bad_ip4"],
    ["v=spf1 ip4:192.0.2.0/33 -all", "spf.bad_cidr"],
    ["v=spf1 ip6:zz::1 -all", "spf.bad_ip6"],
    ["v=spf1 ip4 -all", "spf.missing_ip4"],
    ["v=spf1 include: -all", "spf.missing_include_domain"],
    ["v=spf1 include:not_a_domain -all", "spf.bad_include_domain"],
    ["v=spf1 exists: -all", "spf.missing_exists_domain"],
    ["v=spf1 ipv4:192.0.2.1 -all", "spf.unknown_mechanism"],
    ["v=spf1 foo -all", "spf.unknown_mechanism"],
    ["v=spf1 -all/24", "spf.bad_all"],
    ["v=spf1 redirect=a.example.com redirect=b.example.com", "spf.duplicate_redirect"],
    ["v=spf1 exp=%{z} -all", "spf.bad_exp"],
    ["v=spf1 a:%{q}.example.com -all", "spf.bad_a_domain"],
  ])("%s → %s", (record, code) => {
    expect(errorCodes(record)).toContain(code);
  });

  test("the unknown-mechanism message suggests the likely fix", () => {
    expect(parseSpf("v=spf1 ipv4:192.0.2.1 -all").findings[0]?.message).toContain('did you mean "ip4:"');
  });

  test("terms after all, unknown modifiers and all with redirect warn", () => {
    const warn = (r: string) => parseSpf(r).findings.filter((f) => f.level === "warning").map((f) => f.code);
    expect(warn("v=spf1 -all ip4:192.0.2.1")).toContain("spf.after_all");
    expect(warn("v=spf1 foo=bar -all")).toContain("spf.unknown_modifier");
    expect(warn("v=spf1 -all redirect=x.example.com")).toContain("spf.redirect_ignored");
  });
});

function node(partial: Partial<SpfNode> & { domain: string }): SpfNode {
  return { via: "include", lookupStatus: "ok", record: "v=spf1 -all", lookups: 0, totalLookups: 0, voidLookups: 0, findings: [], children: [], ...partial };
}

describe("SPF summary over a resolved tree", () => {
  test("11 lookups → too many lookups; 10 → valid", () => {
    const over = node({ domain: "example.com", via: "root", record: "v=spf1 include:a.example.com -all", lookups: 1, totalLookups: 11 });
    expect(summarizeSpf(over).status).toBe("too many lookups");
    expect(summarizeSpf({ ...over, totalLookups: 10 }).status).toBe("valid");
  });
  test("3 void lookups → invalid; 2 → valid", () => {
    const root = node({ domain: "example.com", via: "root", record: "v=spf1 a:x.example.com -all", voidLookups: 3 });
    expect(summarizeSpf(root).status).toBe("invalid");
    expect(summarizeSpf({ ...root, voidLookups: 2 }).status).toBe("valid");
  });
  test("no record → missing; errors anywhere in the tree → invalid", () => {
    expect(summarizeSpf(node({ domain: "example.com", via: "root", record: null, lookupStatus: "nodata" })).status).toBe("missing");
    const child = node({ domain: "a.example.com", findings: [{ level: "error", code: "spf.loop", message: "loop" }] });
    expect(summarizeSpf(node({ domain: "example.com", via: "root", record: "v=spf1 include:a.example.com -all", children: [child] })).status).toBe("invalid");
  });
  test("+all, ?all and a missing all warn", () => {
    const codes = (record: string) => summarizeSpf(node({ domain: "example.com", via: "root", record })).findings.map((f) => f.code);
    expect(codes("v=spf1 +all")).toContain("spf.plus_all");
    expect(codes("v=spf1 ?all")).toContain("spf.neutral_all");
    expect(codes("v=spf1 ip4:192.0.2.1")).toContain("spf.no_all");
    expect(codes("v=spf1 all")).toContain("spf.plus_all"); // a bare all means +all
    expect(codes("v=spf1 ~all")).toEqual([]);
  });
});
