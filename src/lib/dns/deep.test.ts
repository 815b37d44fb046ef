import { expect, test } from "bun:test";
import { checkBimiSvg } from "./bimi-svg";
import { dmarcTreeWalk, dmarcTreeWalkNames } from "./dmarc";
import { mxMatchesPattern, parseMtaStsPolicy } from "./mta-sts";
import type { TxtLookup } from "./types";

const txt = (...values: string[]): TxtLookup => ({ status: values.length ? "ok" : "nxdomain", records: values.map((v) => ({ strings: [v], text: v })), ttl: 60 });

test("tree walk names: the domain, then ancestors to the top-level domain; at most 8, a long name shortened to 7 labels", () => {
  expect(dmarcTreeWalkNames("a.b.example.com")).toEqual(["a.b.example.com", "b.example.com", "example.com", "com"]);
  const long = "1.2.3.4.5.6.7.8.9.example.com";
  expect(dmarcTreeWalkNames(long)).toEqual([long, "5.6.7.8.9.example.com", "6.7.8.9.example.com", "7.8.9.example.com", "8.9.example.com", "9.example.com", "example.com", "com"]);
});

test("organizational domain: psd=n names itself, psd=y one label below, else the record with the fewest labels, else the domain", () => {
  const walk = (records: Record<string, string>) => dmarcTreeWalk("a.b.example.com", dmarcTreeWalkNames("a.b.example.com").map((d) => ({ domain: d, lookup: records[d] ? txt(records[d]) : txt() })));
  expect(walk({ "b.example.com": "v=DMARC1; p=reject", "example.com": "v=DMARC1; p=none" })).toMatchObject({ policyDomain: "b.example.com", organizationalDomain: "example.com" });
  expect(walk({ "b.example.com": "v=DMARC1; p=reject; psd=n", "example.com": "v=DMARC1; p=none" }).organizationalDomain).toBe("b.example.com");
  expect(walk({ com: "v=DMARC1; p=reject; psd=y" })).toMatchObject({ policyDomain: "com", organizationalDomain: "example.com" });
  expect(walk({})).toMatchObject({ policyDomain: null, organizationalDomain: "a.b.example.com" });
});

test("MTA-STS mx patterns: exact, or a wildcard for exactly one label", () => {
  expect(mxMatchesPattern("mx1.example.com", "mx1.example.com")).toBe(true);
  expect(mxMatchesPattern("mx1.example.com", "*.example.com")).toBe(true);
  expect(mxMatchesPattern("a.mx1.example.com", "*.example.com")).toBe(false);
  expect(mxMatchesPattern("example.com", "*.example.com")).toBe(false);
  expect(mxMatchesPattern("mx1.example.com.", "MX1.example.com")).toBe(true);
  expect(parseMtaStsPolicy("version: STSv1\nmode: enforce\nmx: a.example\nmx: *.b.example\nmax_age: 86400\n").policy).toEqual({ version: "STSv1", mode: "enforce", maxAge: 86400, mx: ["a.example", "*.b.example"] });
});

test("BIMI SVG: a tiny-ps logo passes; a single-quoted data: image is an external reference", () => {
  const good = `<svg version="1.2" baseProfile="tiny-ps" xmlns="http://www.w3.org/2000/svg"><title>B</title><path d="M0 0h1v1z"/></svg>`;
  expect(checkBimiSvg("https://x/l.svg", new TextEncoder().encode(good))).toEqual([]);
  const embedded = good.replace("<path", "<image href='data:image/png;base64,AAAA'/><path");
  expect(checkBimiSvg("https://x/l.svg", new TextEncoder().encode(embedded)).map((f) => f.code)).toEqual(["bimi.svg_external_ref"]);
  expect(checkBimiSvg("https://x/l.png", new TextEncoder().encode("\x89PNG")).map((f) => f.code)).toEqual(["bimi.svg_not_svg"]);
});
