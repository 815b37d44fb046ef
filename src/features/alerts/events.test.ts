import { afterEach, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { conditionKey, conditionScope } from "../../lib/alerts/conditions";
import type { AlertEvent } from "../../lib/alerts/events";
import { makeTestApp, type TestApp } from "../../../tests/support/app";
import { recordEvents } from "./events";

let t: TestApp;
afterEach(() => t?.close());

async function org(name = "Acme") {
  const { organizations } = t.deps.store.t;
  const [row] = await t.deps.store.write((tx) => tx.insert(organizations).values({ name, slug: `${name.toLowerCase()}-${crypto.randomUUID().slice(0, 6)}` }).returning());
  return row!.id;
}

const weak = (domain: string): AlertEvent => ({ type: "dns.spf_too_many_lookups", domain, data: { lookupCount: 12, lookupLimit: 10 }, dedupeKey: conditionKey("dns.spf_too_many_lookups", domain) });
const scope = (domain: string) => conditionScope(domain, ["dns.spf_too_many_lookups"]);

describe("recordEvents", () => {
  test("one event per cause until it clears and returns; one delivery per enabled channel", async () => {
    t = await makeTestApp();
    const orgId = await org();
    const { alertChannels, alertDeliveries, orgEvents } = t.deps.store.t;
    await t.deps.store.write((tx) =>
      tx.insert(alertChannels).values([
        { orgId, type: "email", name: "Ops", target: "ops@example.test" },
        { orgId, type: "slack", name: "Off", target: "https://hooks.example/x", enabled: false },
        { orgId, type: "webhook", name: "Only reports", target: "https://hooks.example/y", eventTypes: JSON.stringify(["reports.stopped"]) },
      ]),
    );
    const first = await recordEvents(t.deps, orgId, [weak("a.example")], { scope: scope("a.example") });
    expect(first.map((e) => e.type)).toEqual(["dns.spf_too_many_lookups"]);
    expect(await recordEvents(t.deps, orgId, [weak("a.example")], { scope: scope("a.example") })).toEqual([]);
    // cleared, then back: a new event
    expect(await recordEvents(t.deps, orgId, [], { scope: scope("a.example") })).toEqual([]);
    expect((await recordEvents(t.deps, orgId, [weak("a.example")], { scope: scope("a.example") })).length).toBe(1);
    const events = await t.deps.store.db.select().from(orgEvents).where(eq(orgEvents.orgId, orgId));
    expect(events.length).toBe(2);
    const deliveries = await t.deps.store.db.select().from(alertDeliveries).where(eq(alertDeliveries.orgId, orgId));
    expect(deliveries.length).toBe(2);
    expect(deliveries.every((d) => d.status === "pending")).toBe(true);
  });

  test("one-off events fire once per key; a rolled-back cause leaves nothing", async () => {
    t = await makeTestApp();
    const orgId = await org();
    const joined: AlertEvent = { type: "account.member_joined", domain: null, data: { name: "Kim" }, dedupeKey: "account.member_joined||m1" };
    expect((await recordEvents(t.deps, orgId, [joined, joined])).length).toBe(1);
    expect((await recordEvents(t.deps, orgId, [joined])).length).toBe(0);
    const other: AlertEvent = { ...joined, dedupeKey: "account.member_joined||m2" };
    await expect(
      t.deps.store.write(async () => {
        await recordEvents(t.deps, orgId, [other]);
        throw new Error("cause failed");
      }),
    ).rejects.toThrow("cause failed");
    const { orgEvents } = t.deps.store.t;
    expect((await t.deps.store.db.select().from(orgEvents).where(eq(orgEvents.orgId, orgId))).length).toBe(1);
  });

  test("Settings' compliance alerts off: DNS events are tracked but not stored", async () => {
    t = await makeTestApp();
    const orgId = await org();
    const { organizationSettings, orgEvents } = t.deps.store.t;
    await t.deps.store.write((tx) => tx.insert(organizationSettings).values({ orgId, complianceAlerts: false }));
    expect(await recordEvents(t.deps, orgId, [weak("b.example")], { scope: scope("b.example") })).toEqual([]);
    expect((await t.deps.store.db.select().from(orgEvents).where(eq(orgEvents.orgId, orgId))).length).toBe(0);
  });

  test("a report's thousands of new failing sources: exactly one event, condition and delivery each, in several statements", async () => {
    // a fixed clock on a whole second: timestamps are stored as epoch seconds
    const at = new Date("2026-11-20T08:30:00.000Z");
    t = await makeTestApp({ deps: { now: () => at } });
    const orgId = await org();
    const { alertChannels, alertConditions, alertDeliveries, orgEvents } = t.deps.store.t;
    const [ops] = await t.deps.store.write((tx) =>
      tx
        .insert(alertChannels)
        .values([
          { orgId, type: "email", name: "Ops", target: "ops@example.test" },
          { orgId, type: "webhook", name: "Only DNS", target: "https://hooks.example/d", eventTypes: JSON.stringify(["dns.spf_too_many_lookups"]) },
        ])
        .returning(),
    );
    const domain = "many.example";
    // more than two statements' worth (1,000 rows each), and one listed twice (fires once)
    const sources = Array.from({ length: 2_345 }, (_, j) => `10.1.${j >> 8}.${j & 255}`);
    const failing = (ip: string, j: number): AlertEvent => ({
      type: "reports.new_failing_source",
      domain,
      data: { sourceIp: ip, sourceName: j % 3 ? null : `mail-${j}.sender.example`, failedMessages: 11 + j, messages: 20 + j, firstSeenAt: "2026-11-19T00:00:00.000Z", threshold: 10 },
      dedupeKey: conditionKey("reports.new_failing_source", domain, ip),
    });
    const current = [...sources.map(failing), failing(sources[7]!, 7)];
    const inScope = conditionScope(domain, ["reports.new_failing_source", "reports.pass_rate_low", "reports.stopped"]);
    const recorded = await recordEvents(t.deps, orgId, current, { scope: inScope });
    expect(recorded.map(({ id: _, ...e }) => e)).toEqual(sources.map((ip, j) => ({ ...failing(ip, j), occurredAt: at })));
    expect(new Set(recorded.map((e) => e.id)).size).toBe(sources.length);

    const events = await t.deps.store.db.select().from(orgEvents).where(eq(orgEvents.orgId, orgId));
    const byId = new Map(recorded.map((e) => [e.id, e]));
    expect(events.length).toBe(sources.length);
    for (const row of events) {
      const e = byId.get(row.id)!;
      expect({ type: row.type, domain: row.domain, data: JSON.parse(row.data), dedupeKey: row.dedupeKey, occurredAt: row.occurredAt }).toEqual({ type: e.type, domain: e.domain, data: e.data, dedupeKey: e.dedupeKey, occurredAt: at });
    }
    const conditions = await t.deps.store.db.select().from(alertConditions).where(eq(alertConditions.orgId, orgId));
    expect(conditions.map((c) => c.key).sort()).toEqual(sources.map((ip) => conditionKey("reports.new_failing_source", domain, ip)).sort());
    expect(conditions.every((c) => c.since.getTime() === at.getTime())).toBe(true);
    // only the channel that takes every type gets them, one each
    const deliveries = await t.deps.store.db.select().from(alertDeliveries).where(eq(alertDeliveries.orgId, orgId));
    expect(deliveries.map((d) => d.eventId).sort()).toEqual(recorded.map((e) => e.id).sort());
    for (const d of deliveries) expect({ channelId: d.channelId, attempts: d.attempts, nextAttemptAt: d.nextAttemptAt, createdAt: d.createdAt, lastError: d.lastError, deliveredAt: d.deliveredAt }).toEqual({ channelId: ops!.id, attempts: 0, nextAttemptAt: at, createdAt: at, lastError: null, deliveredAt: null });
    // the organisation's limit goes out one by one; the rest wait for the channel's summary
    expect(deliveries.filter((d) => d.status === "pending").length).toBe(10);
    expect(deliveries.filter((d) => d.status === "held").length).toBe(sources.length - 10);

    // the same figures again raise nothing; one source gone clears its condition only
    expect(await recordEvents(t.deps, orgId, current, { scope: inScope })).toEqual([]);
    expect(await recordEvents(t.deps, orgId, current.slice(1), { scope: inScope })).toEqual([]);
    const left = await t.deps.store.db.select({ key: alertConditions.key }).from(alertConditions).where(eq(alertConditions.orgId, orgId));
    expect(left.length).toBe(sources.length - 1);
    expect(left.some((c) => c.key === current[0]!.dedupeKey)).toBe(false);
    expect((await t.deps.store.db.select().from(orgEvents).where(eq(orgEvents.orgId, orgId))).length).toBe(sources.length);
  });
});
