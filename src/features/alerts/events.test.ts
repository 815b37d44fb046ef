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
});
