/**
 * A source's DKIM and SPF results as daily_sender_stats' `auth` column: written short (the method
 * as d or s, the result domain as = when it is the row's policy domain, whatever its case) and read
 * back as they were; an empty result domain stays empty.
 */
import { expect, test } from "bun:test";
import { authKey, authResultsOf, authResultsText } from "./rollups";

test("results are stored short and read back exactly, the policy domain in any case", () => {
  const auth = new Map([
    [authKey("dkim", "Example.COM", "s1", "pass"), 12],
    [authKey("dkim", "esp.example.net", "k2", "fail"), 3],
    [authKey("spf", "example.com", null, "pass"), 12],
    [authKey("spf", "bounce.example.com", null, "softfail"), 4],
    [authKey("dkim", "", null, "none"), 1],
  ]);
  const text = authResultsText(auth, "EXAMPLE.com")!;
  expect(JSON.parse(text)).toEqual({ "d\n=\ns1\npass": 12, "d\nesp.example.net\nk2\nfail": 3, "s\n=\n\npass": 12, "s\nbounce.example.com\n\nsoftfail": 4, "d\n\n\nnone": 1 });
  expect(text.length).toBeLessThan(JSON.stringify(Object.fromEntries(auth)).length - 20);
  expect(authResultsOf(text, "EXAMPLE.com")).toEqual([
    { method: "dkim", authDomain: "example.com", selector: "s1", result: "pass", messages: 12 },
    { method: "dkim", authDomain: "esp.example.net", selector: "k2", result: "fail", messages: 3 },
    { method: "spf", authDomain: "example.com", selector: "", result: "pass", messages: 12 },
    { method: "spf", authDomain: "bounce.example.com", selector: "", result: "softfail", messages: 4 },
    { method: "dkim", authDomain: "", selector: "", result: "none", messages: 1 },
  ]);
  // another row's policy domain: the same results, the domain written out
  expect(JSON.parse(authResultsText(auth, "mail.example.com")!)).toMatchObject({ "d\nexample.com\ns1\npass": 12 });
  expect(authResultsText(new Map(), "example.com")).toBeNull();
  expect(authResultsOf(null, "example.com")).toEqual([]);
});
