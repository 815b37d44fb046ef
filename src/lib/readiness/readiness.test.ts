import { describe, expect, test } from "bun:test";
import { walkSpf, type SpfLookups } from "../dns/spf-tree";
import type { LookupResult, MxAnswer, TxtLookup } from "../dns/types";
import { assessEnforcement, withPolicy } from "./enforcement";
import { alignment, explainSource, type LiveDns, type SourceFigures } from "./explain";
import { addressBits, inNetwork, matchSpf, memoLookups, type SpfMatch } from "./spf-match";
import { spfUsage } from "./spf-usage";

type Entry = { TXT?: string[]; A?: string[]; AAAA?: string[]; MX?: string[] };
function zoneLookups(zone: Record<string, Entry>): SpfLookups & { asked: string[] } {
  const asked: string[] = [];
  const ok = <T>(records: T[] | undefined): LookupResult<T> => (records?.length ? { status: "ok", records, ttl: 60 } : { status: "nxdomain", records: [], ttl: 60 });
  return {
    asked,
    txt: async (name) => (asked.push(`TXT ${name}`), ok(zone[name]?.TXT?.map((text) => ({ text, strings: [text] }))) as TxtLookup),
    a: async (name) => (asked.push(`A ${name}`), ok(zone[name]?.A)),
    aaaa: async (name) => (asked.push(`AAAA ${name}`), ok(zone[name]?.AAAA)),
    mx: async (name) => (asked.push(`MX ${name}`), ok(zone[name]?.MX?.map((exchange, i) => ({ exchange, priority: i * 10 })))) as LookupResult<MxAnswer>,
  };
}

const ZONE: Record<string, Entry> = {
  "example.com": { TXT: ["v=spf1 ip4:192.0.2.0/24 ip6:2001:db8::/32 a:web.example.com mx include:sendgrid.net include:_spf.unused.test exists:%{i}._spf.example.com ~all"], MX: ["mx1.example.com"] },
  "web.example.com": { A: ["203.0.113.10"] },
  "mx1.example.com": { A: ["203.0.113.25"], AAAA: ["2001:db8:ff::25"] },
  "sendgrid.net": { TXT: ["v=spf1 ip4:167.89.0.0/17 include:_nested.sendgrid.net -all"] },
  "_nested.sendgrid.net": { TXT: ["v=spf1 ip4:149.72.0.0/16 -all"] },
  "_spf.unused.test": { TXT: ["v=spf1 ip4:198.51.100.0/24 -all"] },
  "redirected.test": { TXT: ["v=spf1 redirect=example.com"] },
  "ptr.test": { TXT: ["v=spf1 ptr -all"] },
};

const tree = (domain: string, zone = ZONE) => walkSpf(domain, zoneLookups(zone));
async function match(ip: string, domain = "example.com"): Promise<SpfMatch> {
  return matchSpf(ip, await tree(domain), zoneLookups(ZONE));
}

describe("IP addresses and networks", () => {
  test("v4 and v6 networks, compressed and mapped forms", () => {
    expect(inNetwork("192.0.2.77", "192.0.2.0", 24)).toBe(true);
    expect(inNetwork("192.0.3.1", "192.0.2.0", 24)).toBe(false);
    expect(inNetwork("192.0.2.1", "192.0.2.1")).toBe(true);
    expect(inNetwork("10.1.2.3", "0.0.0.0", 0)).toBe(true);
    expect(inNetwork("2001:db8:1::5", "2001:db8::", 32)).toBe(true);
    expect(inNetwork("2001:db9::5", "2001:db8::", 32)).toBe(false);
    expect(inNetwork("192.0.2.1", "2001:db8::", 32)).toBe(false);
    expect(addressBits("::ffff:192.0.2.1")!.value).toBe(addressBits("::ffff:c000:201")!.value);
    expect(addressBits("not an ip")).toBeNull();
  });
});

describe("matching an IP in the SPF include tree", () => {
  test("ip4 and ip6 with CIDR in the root record", async () => {
    expect(await match("192.0.2.9")).toMatchObject({ result: "pass", mechanism: "ip4:192.0.2.0/24", domain: "example.com", topTerm: "ip4:192.0.2.0/24", path: ["ip4:192.0.2.0/24"] });
    expect(await match("2001:db8:5::1")).toMatchObject({ result: "pass", mechanism: "ip6:2001:db8::/32" });
  });
  test("a: and mx resolve the names and compare their addresses", async () => {
    expect(await match("203.0.113.10")).toMatchObject({ result: "pass", mechanism: "a:web.example.com" });
    expect(await match("203.0.113.25")).toMatchObject({ result: "pass", mechanism: "mx" });
  });
  test("include: follows the child's record, nested, and names the path", async () => {
    expect(await match("167.89.1.2")).toMatchObject({ result: "pass", mechanism: "ip4:167.89.0.0/17", domain: "sendgrid.net", topTerm: "include:sendgrid.net", path: ["include:sendgrid.net", "ip4:167.89.0.0/17"] });
    expect(await match("149.72.3.4")).toMatchObject({ result: "pass", domain: "_nested.sendgrid.net", path: ["include:sendgrid.net", "include:_nested.sendgrid.net", "ip4:149.72.0.0/16"] });
  });
  test("exists: is unknown, never a guess; ptr too", async () => {
    const m = await match("7.7.7.7");
    expect(m.result).toBe("unknown");
    expect(m.mechanism).toBe("exists:%{i}._spf.example.com");
    expect(m.reason).toContain("cannot be told");
    expect((await match("7.7.7.7", "ptr.test")).result).toBe("unknown");
  });
  test("redirect= evaluates the other record; none matching ends at all", async () => {
    expect(await match("167.89.1.2", "redirected.test")).toMatchObject({ result: "pass", topTerm: "redirect=example.com", path: ["redirect=example.com", "include:sendgrid.net", "ip4:167.89.0.0/17"] });
    const zone = { "plain.test": { TXT: ["v=spf1 ip4:192.0.2.1 -all"] } };
    expect(await matchSpf("192.0.2.2", await tree("plain.test", zone), zoneLookups(zone))).toMatchObject({ result: "fail", mechanism: "-all" });
  });
  test("no record, and memoised lookups", async () => {
    expect(await matchSpf("192.0.2.2", await tree("nothing.test"), zoneLookups(ZONE))).toMatchObject({ result: "none" });
    const base = zoneLookups(ZONE);
    const memo = memoLookups(base);
    const t = await tree("example.com");
    await matchSpf("203.0.113.25", t, memo);
    await matchSpf("203.0.113.25", t, memo);
    expect(base.asked.filter((q) => q === "MX example.com")).toHaveLength(1);
  });
});

const NO_MATCH: SpfMatch = { result: "softfail", mechanism: "~all", domain: "example.com", topTerm: "~all", path: ["~all"] };
const live = (over: Partial<LiveDns> = {}): LiveDns => ({ domain: "example.com", adkim: "r", aspf: "r", spf: NO_MATCH, key: () => ({ status: "missing" }), ...over });
const figures = (over: Partial<SourceFigures>): SourceFigures => ({
  ip: "192.0.2.1",
  service: null,
  baseDomain: null,
  sender: "192.0.2.1",
  senderKey: "ip:192.0.2.1",
  mark: null,
  messages: 100,
  passed: 0,
  spfAligned: 0,
  dkimAligned: 0,
  dkim: [],
  spf: [],
  ...over,
});

describe("explain and fix", () => {
  test("alignment: exact, relaxed subdomain, strict refusal, another domain", () => {
    expect(alignment("example.com", "example.com", "s", "adkim").aligned).toBe(true);
    expect(alignment("mail.example.com", "example.com", "r", "adkim")).toEqual({ aligned: true, words: "mail.example.com and example.com share the organizational domain example.com (relaxed alignment)" });
    expect(alignment("mail.example.com", "example.com", "s", "adkim")).toEqual({ aligned: false, words: "mail.example.com is in example.com but not exactly example.com, and your DMARC record asks for strict alignment (adkim=s)" });
    expect(alignment("sendgrid.net", "example.com", "r", "aspf")).toEqual({ aligned: false, words: "sendgrid.net is not example.com or a name under example.com" });
    expect(alignment("a.example.co.uk", "example.co.uk", "r", "aspf").aligned).toBe(true);
  });

  test("a known service signing with its own domain: custom-domain signing with its selector", () => {
    const e = explainSource(
      figures({ ip: "167.89.1.2", service: "Twilio SendGrid", baseDomain: "sendgrid.net", sender: "Twilio SendGrid", senderKey: "service:Twilio SendGrid", dkim: [{ domain: "sendgrid.net", selector: "smtpapi", result: "pass", messages: 100 }], spf: [{ domain: "em.sendgrid.net", result: "pass", messages: 100 }] }),
      live(),
    );
    expect(e.yours).toBe(true);
    expect(e.failsAlignment).toEqual(["spf", "dkim"]);
    expect(e.spf).toMatchObject({ domain: "em.sendgrid.net", result: "pass", aligned: false });
    expect(e.spf.live.words).toBe("no mechanism in the SPF record of example.com matches 167.89.1.2 (it ends at `~all`: softfail)");
    expect(e.dkim.signatures[0]).toMatchObject({ domain: "sendgrid.net", selector: "smtpapi", aligned: false });
    expect(e.fix).toBe("Publish the DKIM key for selector `s1` that Twilio SendGrid shows you, and turn on custom-domain signing for example.com (in SendGrid's Sender Authentication (domain authentication)).");
  });

  test("an aligned signature whose key is not published: publish it; weak: replace it", () => {
    const src = figures({ service: "Twilio SendGrid", baseDomain: "sendgrid.net", sender: "Twilio SendGrid", senderKey: "service:Twilio SendGrid", dkim: [{ domain: "example.com", selector: "s1", result: "fail", messages: 100 }] });
    expect(explainSource(src, live()).fix).toBe("Publish the DKIM key for selector `s1` that Twilio SendGrid shows you, as a TXT (or CNAME) record at `s1._domainkey.example.com`.");
    expect(explainSource(src, live({ key: () => ({ status: "weak key", bits: 512 }) })).fix).toContain("too short (512 bits)");
  });

  test("strict alignment refuses a subdomain signature: say so and how to relax it", () => {
    const e = explainSource(figures({ mark: "approved", dkim: [{ domain: "news.example.com", selector: "k1", result: "pass", messages: 100 }] }), live({ adkim: "s" }));
    expect(e.dkim.signatures[0]!.alignment).toContain("strict alignment (adkim=s)");
    expect(e.fix).toBe("192.0.2.1 signs with d=news.example.com, which strict alignment (adkim=s) refuses for example.com: have it sign with d=example.com, or change adkim=s to adkim=r in the record at `_dmarc.example.com`.");
  });

  test("bounce address at the domain, IP not in SPF: add the service's include", () => {
    const e = explainSource(figures({ service: "Twilio SendGrid", baseDomain: "sendgrid.net", sender: "Twilio SendGrid", senderKey: "service:Twilio SendGrid", spf: [{ domain: "example.com", result: "softfail", messages: 100 }] }), live());
    expect(e.fix).toBe("Add `include:sendgrid.net` to the SPF record of `example.com`.");
    const approvedServer = explainSource(figures({ mark: "approved", spf: [{ domain: "example.com", result: "fail", messages: 100 }] }), live());
    expect(approvedServer.fix).toBe("Add `ip4:192.0.2.1` to the SPF record of `example.com`.");
  });

  test("not yours: no change; passing: no change", () => {
    expect(explainSource(figures({ spf: [{ domain: "example.com", result: "fail", messages: 100 }] }), live()).fix).toStartWith("This source is not yours: no change, reject will stop it.");
    expect(explainSource(figures({ service: "Twilio SendGrid", baseDomain: "sendgrid.net", mark: "not_ours" }), live()).fix).toBe("This source is not yours: no change, reject will stop it.");
    const ok = explainSource(figures({ service: "Google", passed: 100, dkimAligned: 100, dkim: [{ domain: "example.com", selector: "google", result: "pass", messages: 100 }] }), live());
    expect(ok.fix).toBe("No change needed: all its mail passes DMARC (DKIM aligned).");
    expect(ok.failsAlignment).toEqual([]);
  });
});

describe("SPF that is used", () => {
  test("terms that authorized mail, unused ones and the lookups they cost", async () => {
    const root = await tree("example.com");
    const lookups = zoneLookups(ZONE);
    const sources = await Promise.all(
      [
        ["192.0.2.9", 40],
        ["167.89.1.2", 30],
        ["149.72.3.4", 5],
      ].map(async ([ip, messages]) => ({ ip: ip as string, messages: messages as number, match: await matchSpf(ip as string, root, lookups) })),
    );
    const usage = spfUsage(root, sources, 30);
    expect(usage.terms.find((t) => t.term === "include:sendgrid.net")).toEqual({ term: "include:sendgrid.net", kind: "include", lookups: 2, messages: 35, sources: 2 });
    expect(usage.unused).toEqual(["ip6:2001:db8::/32", "a:web.example.com", "mx", "include:_spf.unused.test", "exists:%{i}._spf.example.com"]);
    expect(usage.lookupsSaved).toBe(4);
    expect(usage.rewrite).toBeNull();
  });

  test("over 10 lookups: remove unused first, then flatten with the cost said", async () => {
    const zone: Record<string, Entry> = { "big.test": { TXT: [`v=spf1 ${Array.from({ length: 6 }, (_, i) => `include:s${i}.test`).join(" ")} -all`] } };
    for (let i = 0; i < 6; i++) zone[`s${i}.test`] = { TXT: [`v=spf1 ip4:10.0.${i}.0/24 include:n${i}.test -all`] };
    for (let i = 0; i < 6; i++) zone[`n${i}.test`] = { TXT: [`v=spf1 ip4:10.1.${i}.0/24 -all`] };
    const root = await tree("big.test", zone);
    expect(root.totalLookups).toBe(12);
    const lookups = zoneLookups(zone);
    const used = await Promise.all(["10.0.0.1", "10.0.1.1", "10.0.2.1", "10.0.3.1", "10.0.4.1"].map(async (ip) => ({ ip, messages: 10, match: await matchSpf(ip, root, lookups) })));
    const usage = spfUsage(root, used, 30);
    expect(usage.unused).toEqual(["include:s5.test"]);
    expect(usage.rewrite).toMatchObject({ lookups: 10, removed: ["include:s5.test"], flatten: [] });
    expect(usage.rewrite!.record).toBe("v=spf1 include:s0.test include:s1.test include:s2.test include:s3.test include:s4.test -all");
    const all = await Promise.all(["10.0.0.1", "10.0.1.1", "10.0.2.1", "10.0.3.1", "10.0.4.1", "10.0.5.1"].map(async (ip) => ({ ip, messages: 10, match: await matchSpf(ip, root, lookups) })));
    const tight = spfUsage(root, all, 30);
    expect(tight.rewrite!.removed).toEqual([]);
    expect(tight.rewrite!.flatten[0]).toMatchObject({ term: "include:s0.test", lookupsSaved: 2, addresses: ["ip4:10.0.0.0/24", "ip4:10.1.0.0/24"] });
    expect(tight.rewrite!.flatten[0]!.cost).toContain("can change them at any time");
    expect(tight.rewrite!.lookups).toBe(10);
    expect(tight.rewrite!.record).toStartWith("v=spf1 ip4:10.0.0.0/24 ip4:10.1.0.0/24 include:s1.test");
  });
});

describe("readiness", () => {
  const src = (over: Partial<ReturnType<typeof explainSource>>) => ({ ...explainSource(figures({}), live()), ...over });
  test("stage, next stage, blockers, projection and a ramp when the blockers are small", () => {
    const sources = [
      src({ ip: "167.89.1.2", sender: "Twilio SendGrid", senderKey: "service:Twilio SendGrid", service: "Twilio SendGrid", yours: true, messages: 10, passed: 0, failing: 10, fix: "fix sendgrid" }),
      src({ ip: "192.0.2.1", sender: "mail.example.com", senderKey: "domain:example.com", yours: true, mark: "approved", messages: 1000, passed: 1000, failing: 0 }),
      src({ ip: "203.0.113.66", sender: "203.0.113.66", senderKey: "ip:203.0.113.66", yours: false, messages: 50, passed: 0, failing: 50 }),
    ];
    const r = assessEnforcement({ domain: "example.com", dmarcStatus: "none", dmarcRecord: "v=DMARC1; p=none; rua=mailto:d@example.com", days: 30, sources, rua: null });
    expect(r).toMatchObject({ stage: "none", nextStage: "quarantine", pct: 100, ready: false, projection: { days: 30, yoursUnauthenticated: 10, notYours: 50, messages: 1060 } });
    expect(r.blockers).toEqual([{ source: "Twilio SendGrid", senderKey: "service:Twilio SendGrid", service: "Twilio SendGrid", mark: null, ips: ["167.89.1.2"], messages: 10, totalMessages: 10, fix: "fix sendgrid" }]);
    expect(r.recommendation.ramp.map((s) => s.record)).toEqual([
      "v=DMARC1; p=quarantine; pct=10; t=y; rua=mailto:d@example.com",
      "v=DMARC1; p=quarantine; pct=25; t=y; rua=mailto:d@example.com",
      "v=DMARC1; p=quarantine; pct=50; t=y; rua=mailto:d@example.com",
      "v=DMARC1; p=quarantine; rua=mailto:d@example.com",
    ]);
  });
  test("no record → p=none affects nothing; reject has no next stage; large blockers: fix first", () => {
    const yours = src({ sender: "Google", senderKey: "service:Google", service: "Google", yours: true, messages: 100, passed: 50, failing: 50, fix: "f" });
    const missing = assessEnforcement({ domain: "example.com", dmarcStatus: "missing", dmarcRecord: null, days: 30, sources: [yours], rua: "r@dw.test" });
    expect(missing).toMatchObject({ stage: "missing", nextStage: "none", pct: null, blockers: [], projection: { yoursUnauthenticated: 0, notYours: 0 }, recommendation: { record: "v=DMARC1; p=none; rua=mailto:r@dw.test" } });
    const big = assessEnforcement({ domain: "example.com", dmarcStatus: "quarantine", dmarcRecord: "v=DMARC1; p=quarantine; pct=50", days: 30, sources: [yours], rua: null });
    expect(big).toMatchObject({ stage: "quarantine", pct: 50, nextStage: "reject", recommendation: { record: null, ramp: [] } });
    expect(big.blockers).toHaveLength(1);
    expect(assessEnforcement({ domain: "example.com", dmarcStatus: "reject", dmarcRecord: "v=DMARC1; p=reject", days: 30, sources: [], rua: null })).toMatchObject({ stage: "reject", nextStage: null, ready: true });
    expect(withPolicy("v=DMARC1; p=none; pct=20; t=y; adkim=s", "reject", 100, null)).toBe("v=DMARC1; p=reject; adkim=s");
  });
});
