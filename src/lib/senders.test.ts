import { describe, expect, test } from "bun:test";
import { parseSenderKey, senderOf, senderVerdict, senderVerdictText, summariseSenders, type SenderRow } from "./senders";

const row = (over: Partial<SenderRow>): SenderRow => ({
  sourceIp: "192.0.2.1",
  service: null,
  serviceType: null,
  baseDomain: null,
  policyDomain: "example.com",
  country: null,
  messages: 10,
  passing: 10,
  spfAligned: 10,
  dkimAligned: 10,
  lastSeen: Date.UTC(2026, 0, 1),
  ...over,
});

describe("senderOf", () => {
  test("a known service, else the base domain, else the IP", () => {
    expect(senderOf({ service: "Google", baseDomain: "google.com", sourceIp: "1.2.3.4" })).toEqual({ sender: "Google", kind: "service" });
    expect(senderOf({ service: null, baseDomain: "Example.NET", sourceIp: "1.2.3.4" })).toEqual({ sender: "example.net", kind: "domain" });
    expect(senderOf({ service: null, baseDomain: null, sourceIp: "1.2.3.4" })).toEqual({ sender: "1.2.3.4", kind: "ip" });
  });
});

describe("senderVerdict", () => {
  test("98% and up is authenticated, 50% and up partly, below failing", () => {
    expect(senderVerdict(100)).toBe("authenticated");
    expect(senderVerdict(98)).toBe("authenticated");
    expect(senderVerdict(97.9)).toBe("partly");
    expect(senderVerdict(50)).toBe("partly");
    expect(senderVerdict(49.9)).toBe("failing");
    expect(senderVerdict(0)).toBe("failing");
  });

  test("plain words for each verdict", () => {
    expect(senderVerdictText({ verdict: "authenticated", passRate: 100, spfAlignedRate: 100, dkimAlignedRate: 100 })).toBe("Authenticated — SPF and DKIM aligned");
    expect(senderVerdictText({ verdict: "authenticated", passRate: 100, spfAlignedRate: 0, dkimAlignedRate: 100 })).toBe("Authenticated — DKIM aligned");
    expect(senderVerdictText({ verdict: "partly", passRate: 60, spfAlignedRate: 60, dkimAlignedRate: 0 })).toBe(
      "Partly authenticated — 40% of its mail fails DMARC: add it to SPF or have it sign with DKIM for your domain",
    );
    expect(senderVerdictText({ verdict: "failing", passRate: 0, spfAlignedRate: 0, dkimAlignedRate: 0 })).toBe("Failing — not authorized to send as you; if you don't know it, this is spoofing");
    expect(senderVerdictText({ verdict: "failing", kind: "ip", passRate: 0, spfAlignedRate: 0, dkimAlignedRate: 0 })).toBe("Failing — not authorized to send as you; if you don't know it, this is spoofing");
    expect(senderVerdictText({ verdict: "failing", kind: "service", passRate: 0, spfAlignedRate: 0, dkimAlignedRate: 0 })).toBe(
      "Failing — this service is not set up to send as you: add it to SPF or turn on DKIM signing for your domain in its settings; if you don't use it, someone else is",
    );
  });
});

describe("summariseSenders", () => {
  test("groups IPs of one service, sums messages and computes rates to one decimal", () => {
    const out = summariseSenders([
      row({ sourceIp: "10.0.0.1", service: "Google", serviceType: "Email Provider", baseDomain: "google.com", messages: 2, passing: 2, spfAligned: 2, dkimAligned: 1, country: "us" }),
      row({ sourceIp: "10.0.0.2", service: "Google", serviceType: "Email Provider", baseDomain: "google.com", messages: 1, passing: 0, spfAligned: 0, dkimAligned: 0, country: "IE", policyDomain: "mail.example.com", lastSeen: Date.UTC(2026, 0, 5) }),
      row({ sourceIp: "10.0.0.3", baseDomain: "unknown.net", messages: 1, passing: 0, spfAligned: 0, dkimAligned: 0 }),
    ]);
    expect(out).toHaveLength(2);
    expect(out[0]).toEqual({
      key: "service:Google",
      mark: null,
      sender: "Google",
      kind: "service",
      serviceType: "Email Provider",
      messages: 3,
      passRate: 66.7,
      spfAlignedRate: 66.7,
      dkimAlignedRate: 33.3,
      ips: 2,
      domains: ["example.com", "mail.example.com"],
      countries: ["US", "IE"],
      lastSeen: "2026-01-05T00:00:00.000Z",
      verdict: "partly",
    });
    expect(out[1]).toMatchObject({ sender: "unknown.net", kind: "domain", messages: 1, passRate: 0, verdict: "failing", ips: 1, countries: [] });
  });

  test("most messages first, capped at the limit; domains at 5 and countries at 3, most mail first", () => {
    const rows = [
      ...["a", "b", "c", "d", "e", "f"].map((d, i) => row({ sourceIp: "10.1.0.1", service: "Big", policyDomain: `${d}.example`, messages: 10 + i, country: ["US", "DE", "FR", "GB", "NL", "SE"][i] })),
      row({ sourceIp: "10.2.0.1", messages: 5 }),
      row({ sourceIp: "10.3.0.1", messages: 50, passing: 50, spfAligned: 50, dkimAligned: 50 }),
    ];
    const out = summariseSenders(rows, 2);
    expect(out.map((s) => s.sender)).toEqual(["Big", "10.3.0.1"]);
    expect(out[0]!.domains).toEqual(["f.example", "e.example", "d.example", "c.example", "b.example"]);
    expect(out[0]!.countries).toEqual(["SE", "NL", "GB"]);
    expect(out[1]).toMatchObject({ kind: "ip", verdict: "authenticated", passRate: 100 });
  });

  test("a mark overrides the verdict: approved failures are set-up work, a sender marked not ours is spoofing", () => {
    const rows = [
      row({ sourceIp: "10.0.0.1", service: "Mailchimp", messages: 10, passing: 2 }),
      row({ sourceIp: "10.0.0.2", baseDomain: "Evil.example", messages: 5, passing: 5 }),
      row({ sourceIp: "10.0.0.3", messages: 3, passing: 3 }),
    ];
    const marks = new Map([
      ["service:Mailchimp", "approved" as const],
      ["domain:evil.example", "not_ours" as const],
      ["ip:10.0.0.3", "approved" as const],
    ]);
    const out = summariseSenders(rows, 10, marks);
    expect(out.map((s) => [s.key, s.mark, s.verdict])).toEqual([
      ["service:Mailchimp", "approved", "setup"],
      ["domain:evil.example", "not_ours", "spoofing"],
      ["ip:10.0.0.3", "approved", "authenticated"],
    ]);
    expect(senderVerdictText(out[0]!)).toBe("Yours, not set up yet — 80% of its mail fails DMARC: add it to SPF or have it sign with DKIM for your domain");
    expect(senderVerdictText(out[1]!)).toBe("Not yours — marked as not yours, yet 100% of its mail passes DMARC: remove it from your SPF record and retire any DKIM key it signs with");
    expect(senderVerdictText({ ...out[1]!, passRate: 0 })).toBe("Not yours — marked as not yours: its mail is spoofing; a DMARC policy of p=reject has receivers refuse it");
  });

  test("sender keys: kind and sender, domains in lower case, IPs only of IP characters", () => {
    expect(parseSenderKey("service:Google")).toEqual({ kind: "service", sender: "Google" });
    expect(parseSenderKey("domain:Example.NET")).toEqual({ kind: "domain", sender: "example.net" });
    expect(parseSenderKey("ip:2001:db8::1")).toEqual({ kind: "ip", sender: "2001:db8::1" });
    expect(parseSenderKey("ip:not-an-ip")).toBeNull();
    expect(parseSenderKey("Google")).toBeNull();
    expect(parseSenderKey("service:")).toBeNull();
    expect(parseSenderKey(`service:${"x".repeat(400)}`)).toBeNull();
  });

  test("nothing in, nothing out", () => {
    expect(summariseSenders([])).toEqual([]);
  });
});
