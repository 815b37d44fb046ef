import { describe, expect, test } from "bun:test";
import { evaluateMtaSts, evaluateMx, evaluateTlsRpt } from "../dns/extras";
import type { TxtLookup } from "../dns/types";
import { updateConditions } from "./conditions";
import { dnsConditions, dnsConditionScope, dnsSnapshot, type DnsCheckLike, type DnsSnapshot } from "./dns-events";

const DOMAIN = "example.com";
const txt = (...records: string[]): TxtLookup => ({ status: records.length ? "ok" : "nodata", records: records.map((text) => ({ strings: [text], text })), ttl: 300 });

function check(overrides: Partial<{ dmarc: string | null; policy: "none" | "quarantine" | "reject"; pct: number | null; rua: string[]; spf: string | null; lookups: number; keys: DnsCheckLike["dkim"]["details"]["keys"]; tried: string[]; mx: "ok" | "none" | "servfail"; overall: DnsCheckLike["overallStatus"]; incomplete: boolean }> = {}): DnsCheckLike {
  const o = { dmarc: "v=DMARC1; p=reject; rua=mailto:d@example.com", policy: "reject" as const, pct: null, rua: ["d@example.com"], spf: "v=spf1 include:_spf.mail.test -all", lookups: 2, keys: [{ selector: "s1", record: "v=DKIM1; p=AAAA", status: "valid", keyType: "rsa", bits: 2048 }], tried: ["s1", "google"], mx: "ok" as const, overall: "protected" as const, incomplete: false, ...overrides };
  return {
    domain: DOMAIN,
    checkedAt: "2026-05-01T10:00:00.000Z",
    overallStatus: o.overall,
    incomplete: o.incomplete,
    dmarc: { recordValue: o.dmarc, status: o.dmarc === null ? "missing" : o.policy, details: { pct: o.pct, rua: o.rua.map((address) => ({ address })) } },
    spf: { recordValue: o.spf, status: o.spf === null ? "missing" : o.lookups > 10 ? "too many lookups" : "valid", details: { lookupCount: o.lookups, lookupLimit: 10 } },
    dkim: { status: "valid", details: { selectorsTried: o.tried, keys: o.keys } },
    extras: {
      mx: evaluateMx(DOMAIN, o.mx === "servfail" ? { status: "servfail", records: [], ttl: 0 } : { status: o.mx === "ok" ? "ok" : "nodata", records: o.mx === "ok" ? [{ exchange: "mx.example.com", priority: 10 }] : [], ttl: 300 }),
      mtaSts: evaluateMtaSts(DOMAIN, txt("v=STSv1; id=20260101")),
      tlsRpt: evaluateTlsRpt(DOMAIN, txt()),
    },
  };
}
const snap = (overrides: Parameters<typeof check>[0] = {}) => dnsSnapshot(check(overrides))!;
const types = (before: DnsSnapshot | null, after: DnsSnapshot) => dnsConditions(before, after).map((e) => e.type).sort();

describe("DNS change events", () => {
  test("nothing changed: no event", () => {
    expect(dnsConditions(snap(), snap())).toEqual([]);
  });

  test("a domain's first check raises no change events (only standing problems)", () => {
    expect(types(null, snap())).toEqual([]);
    expect(types(null, snap({ lookups: 12 }))).toEqual(["dns.spf_too_many_lookups"]);
  });

  test("DMARC p=reject → p=none: the record changed, the status got worse and the policy was weakened, with before and after", () => {
    const before = snap();
    const after = snap({ dmarc: "v=DMARC1; p=none; rua=mailto:d@example.com", policy: "none", overall: "vulnerable" });
    const events = dnsConditions(before, after);
    expect(events.map((e) => e.type).sort()).toEqual(["dns.dmarc_weakened", "dns.record_changed", "dns.status_worse"]);
    const changed = events.find((e) => e.type === "dns.record_changed")!;
    expect(changed.data).toEqual({ record: "dmarc", before: "v=DMARC1; p=reject; rua=mailto:d@example.com", after: "v=DMARC1; p=none; rua=mailto:d@example.com" });
    const weakened = events.find((e) => e.type === "dns.dmarc_weakened")!;
    expect(weakened.data.reasons).toEqual(["policy"]);
    expect(events.find((e) => e.type === "dns.status_worse")!.data).toEqual({ before: "protected", after: "vulnerable" });
  });

  test("a lower pct and a removed rua weaken DMARC too; a stronger policy does not", () => {
    const lowerPct = dnsConditions(snap(), snap({ dmarc: "v=DMARC1; p=reject; pct=20; rua=mailto:d@example.com", pct: 20 })).find((e) => e.type === "dns.dmarc_weakened");
    expect(lowerPct?.data.reasons).toEqual(["pct"]);
    const noRua = dnsConditions(snap(), snap({ dmarc: "v=DMARC1; p=reject", rua: [] })).find((e) => e.type === "dns.dmarc_weakened");
    expect(noRua?.data.reasons).toEqual(["rua"]);
    const stronger = dnsConditions(snap({ dmarc: "v=DMARC1; p=none", policy: "none" }), snap());
    expect(stronger.map((e) => e.type)).not.toContain("dns.dmarc_weakened");
  });

  test("records appear and disappear: DMARC, SPF, MX", () => {
    expect(types(snap({ dmarc: null, overall: "partial" }), snap())).toEqual(["dns.record_appeared", "dns.status_better"]);
    const gone = dnsConditions(snap(), snap({ spf: null, overall: "partial" }));
    expect(gone.find((e) => e.type === "dns.record_disappeared")!.data).toEqual({ record: "spf", before: "v=spf1 include:_spf.mail.test -all", after: null });
    expect(dnsConditions(snap(), snap({ mx: "none" })).map((e) => [e.type, e.data.record])).toEqual([["dns.record_disappeared", "mx"]]);
  });

  test("a failed MX lookup is not a disappearance", () => {
    const after = snap({ mx: "servfail" });
    expect(after.unknown).toEqual(["mx"]);
    expect(dnsConditions(snap(), after)).toEqual([]);
  });

  test("a DKIM key changes per selector; a selector this check did not try has not disappeared", () => {
    const rotated = dnsConditions(snap(), snap({ keys: [{ selector: "s1", record: "v=DKIM1; p=BBBB", status: "valid", keyType: "rsa", bits: 2048 }] }));
    expect(rotated.map((e) => [e.type, e.data.selector])).toEqual([["dns.record_changed", "s1"]]);
    expect(dnsConditions(snap(), snap({ keys: [], tried: ["google"] }))).toEqual([]);
    expect(dnsConditions(snap(), snap({ keys: [] })).map((e) => e.type)).toEqual(["dns.record_disappeared"]);
  });

  test("SPF over 10 lookups and a weak DKIM key are standing conditions: they alert once while they hold", () => {
    const scope = dnsConditionScope(DOMAIN);
    const broken = snap({ lookups: 12, keys: [{ selector: "s1", record: "v=DKIM1; p=AAAA", status: "weak key", keyType: "rsa", bits: 512 }] });
    const first = updateConditions([], dnsConditions(snap(), broken), scope);
    expect(first.fire.map((e) => e.type).sort()).toEqual(["dns.dkim_weak_key", "dns.spf_too_many_lookups"]);
    expect(first.fire.find((e) => e.type === "dns.dkim_weak_key")!.data).toEqual({ selector: "s1", keyType: "rsa", bits: 512 });
    const second = updateConditions(first.active, dnsConditions(broken, broken), scope);
    expect(second.fire).toEqual([]);
  });

  test("a change alerts once; checking again is quiet; reverting and changing again alerts each time", () => {
    const scope = dnsConditionScope(DOMAIN);
    const reject = snap();
    const none = snap({ dmarc: "v=DMARC1; p=none; rua=mailto:d@example.com", policy: "none", overall: "partial" });
    let active: string[] = [];
    const run = (before: DnsSnapshot, after: DnsSnapshot) => {
      const update = updateConditions(active, dnsConditions(before, after), scope);
      active = update.active;
      return update.fire.map((e) => e.type).sort();
    };
    expect(run(reject, none)).toEqual(["dns.dmarc_weakened", "dns.record_changed", "dns.status_worse"]);
    expect(run(none, none)).toEqual([]);
    expect(run(none, reject)).toEqual(["dns.record_changed", "dns.status_better"]);
    expect(run(reject, none)).toEqual(["dns.dmarc_weakened", "dns.record_changed", "dns.status_worse"]);
  });

  test("a check during which DNS failed gives no snapshot (nothing to compare)", () => {
    expect(dnsSnapshot(check({ incomplete: true }))).toBeNull();
  });

  test("the snapshot is plain JSON (it is stored between checks)", () => {
    const s = snap();
    expect(JSON.parse(JSON.stringify(s))).toEqual(s);
  });
});

// the server's analysis is what gets snapshotted (only a complete one: an unanswered check raises nothing): keep the two shapes compatible
import type { CompleteAnalysis } from "../../features/dns/analyze";
export const analysisIsCheckable: (analysis: CompleteAnalysis) => DnsCheckLike = (analysis) => analysis;
