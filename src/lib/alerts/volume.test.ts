import { describe, expect, test } from "bun:test";
import { describeAlert } from "./describe";
import { alertLimitOf, alertLimitSchema, HeldTally, SUMMARY_LIST_MAX } from "./volume";

describe("the summary of held alerts", () => {
  test("counts per kind; domains and sources cut to a few, the rest counted", () => {
    const tally = new HeldTally();
    const at = new Date("2026-12-01T10:00:00Z");
    for (let i = 0; i < 30; i++) tally.add({ type: "reports.new_failing_source", domain: `d${i % 15}.test`, data: { sourceIp: `192.0.2.${i}` }, occurredAt: new Date(at.getTime() + i * 1000) });
    tally.add({ type: "dns.record_changed", domain: "d0.test", data: { record: "spf" }, occurredAt: at });
    const data = tally.data(10);
    expect(data).toMatchObject({ limit: 10, windowMinutes: 10, held: 31, from: at.toISOString(), to: new Date(at.getTime() + 29_000).toISOString(), moreDomains: 5, moreSources: 20 });
    expect(data.kinds).toEqual([
      { type: "reports.new_failing_source", count: 30 },
      { type: "dns.record_changed", count: 1 },
    ]);
    expect(data.domains.length).toBe(SUMMARY_LIST_MAX);
    expect(data.domains[0]).toEqual({ domain: "d0.test", count: 3 });
    expect(data.sources.length).toBe(SUMMARY_LIST_MAX);

    const words = describeAlert({ type: "alerts.summary", domain: null, data: data as unknown as Record<string, unknown>, dedupeKey: "" }, { organization: { name: "Org" }, publicUrl: "https://dw.example" });
    expect(words.title).toBe("31 more alerts held back");
    expect(words.summary).toContain("at most 10 alerts every 10 minutes");
    expect(words.facts).toContainEqual({ label: "New source failing DMARC", value: "30" });
    expect(words.facts).toContainEqual({ label: "DNS record changed", value: "1" });
    expect(words.facts.find((f) => f.label === "Domains")!.value).toEndWith("and 5 more");
    expect(words.facts.find((f) => f.label === "Sources")!.value).toEndWith("and 20 more");
    expect(words.link).toBe("https://dw.example/app/dashboard");
  });

  test("the limit: whole numbers from 1 to 100; a stored value out of bounds reads as the default", () => {
    for (const perWindow of [1, 10, 100]) expect(alertLimitSchema.safeParse({ perWindow }).success).toBe(true);
    for (const perWindow of [0, 101, 1.5, "5", null]) expect(alertLimitSchema.safeParse({ perWindow }).success).toBe(false);
    expect(alertLimitSchema.safeParse({ perWindow: 5, extra: 1 }).success).toBe(false);
    expect([alertLimitOf(3), alertLimitOf(0), alertLimitOf(500), alertLimitOf(null)]).toEqual([3, 10, 10, 10]);
  });
});
