/**
 * A record's row keeps its DKIM and SPF results as compact JSON written out by hand, and its From
 * domains as "" when they repeat: what is written reads back exactly as the reporter gave it,
 * whatever the text holds, and is the JSON every earlier row was written as.
 */
import { expect, test } from "bun:test";
import type { DkimAuthResult, SpfAuthResult } from "../../lib/reports/model";
import { dkimResultsOf, dkimResultsText, recordFroms, spfResultsOf, spfResultsText, storedFroms } from "./record-auth";

const dkim: DkimAuthResult[] = [
  { domain: "example.com", selector: "s1", result: "pass", humanResult: null },
  { domain: "esp.example.net", selector: null, result: "fail", humanResult: 'body hash "did" not verify \\ at\tall' },
  { domain: "ünïcode.example", selector: "sel\u2028ector", result: "temperror", humanResult: "\u0000 and \u001f" },
];
const spf: SpfAuthResult[] = [
  { domain: "example.com", scope: "mfrom", result: "pass", humanResult: null },
  { domain: "bounce.example.com", scope: null, result: "softfail", humanResult: "" },
];

test("results read back exactly as given, and are written as JSON.stringify wrote them", () => {
  const dkimText = dkimResultsText(dkim, "example.com")!;
  const spfText = spfResultsText(spf, "example.com")!;
  expect(dkimResultsOf(dkimText, "example.com")).toEqual(dkim);
  expect(spfResultsOf(spfText, "example.com")).toEqual(spf);
  // the header From's domain is 0; a human result only when given (an empty one is given)
  expect(dkimText).toBe(JSON.stringify([[0, "s1", "pass"], ["esp.example.net", null, "fail", dkim[1]!.humanResult], ["ünïcode.example", "sel\u2028ector", "temperror", "\u0000 and \u001f"]]));
  expect(spfText).toBe(JSON.stringify([[0, "mfrom", "pass"], ["bounce.example.com", null, "softfail", ""]]));
  // another header From: no domain is 0
  expect(JSON.parse(dkimResultsText(dkim, "other.example")!)[0][0]).toBe("example.com");
  // none: null, not an empty array
  expect(dkimResultsText([], "example.com")).toBeNull();
  expect(dkimResultsOf(null, "example.com")).toEqual([]);
});

test("From domains: \"\" for a repeat of the policy domain or of the header From, read back as given", () => {
  const cases: [string | null, string | null, string, [string | null, string | null]][] = [
    ["example.com", "example.com", "example.com", ["", ""]],
    ["example.com", "bounce.example.net", "example.com", ["", "bounce.example.net"]],
    ["news.example.com", "news.example.com", "example.com", ["news.example.com", ""]],
    ["news.example.com", "example.com", "example.com", ["news.example.com", "example.com"]],
    [null, null, "example.com", [null, null]],
    [null, "example.com", "example.com", [null, "example.com"]],
    ["example.com", null, "example.com", ["", null]],
  ];
  for (const [headerFrom, envelopeFrom, policyDomain, stored] of cases) {
    expect(storedFroms(headerFrom, envelopeFrom, policyDomain)).toEqual(stored);
    expect(recordFroms({ headerFrom: stored[0], envelopeFrom: stored[1] }, policyDomain)).toEqual({ headerFrom, envelopeFrom });
  }
});
