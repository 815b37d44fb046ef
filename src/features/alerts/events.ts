/**
 * Organisation events and the outbox. `recordEvents` is the one way an event is raised: inside
 * the caller's `store.write` (a nested write joins it), it runs the one-alert-per-cause state
 * machine against `alert_conditions`, stores the events that fire in `org_events` and writes one
 * `alert_deliveries` row per enabled channel that takes the event's type — in the same
 * transaction as the cause, so a crash loses no alert. Delivery happens later (delivery.ts).
 */
import { and, eq, inArray } from "drizzle-orm";
import type { StoreCore } from "../../db/store";
import { updateConditions } from "../../lib/alerts/conditions";
import { eventCategory, type AlertEvent, type AlertEventType } from "../../lib/alerts/events";
import { alertSettingsOf } from "../settings/service";

/** What recording needs: the store and the clock (AppDeps, a service context and StatusDeps all have them). */
export interface AlertsDeps {
  store: StoreCore;
  now: () => Date;
}

export interface RecordOptions {
  /**
   * Which active condition keys this evaluation speaks for (conditionScope / dnsConditionScope /
   * reportConditionScope): `events` are then every condition in scope that holds now; those
   * already active do not fire again, active ones in scope that are missing clear.
   * Omitted: `events` are one-off facts (a member joined, a failure report arrived) — each fires
   * once for its dedupeKey, which stays recorded and is never cleared by this call.
   */
  scope?: (key: string) => boolean;
}

export interface RecordedEvent extends AlertEvent {
  id: string;
  occurredAt: Date;
}

/**
 * Rows per statement: a report can raise thousands of events at once, and PostgreSQL takes at
 * most 65,535 parameters in one statement (org_events has 7 columns, alert_deliveries 7).
 */
const ROWS_PER_STATEMENT = 1_000;
const batches = <T>(items: T[]): T[][] => Array.from({ length: Math.ceil(items.length / ROWS_PER_STATEMENT) }, (_, i) => items.slice(i * ROWS_PER_STATEMENT, (i + 1) * ROWS_PER_STATEMENT));

/** The event groups Settings' toggles switch off: compliance alerts = DNS, real-time threat monitoring = reports. */
export interface CategorySwitches {
  dns: boolean;
  reports: boolean;
}

async function categorySwitches(store: StoreCore, orgId: string): Promise<CategorySwitches> {
  const settings = await alertSettingsOf({ store }, orgId);
  return { dns: settings.complianceAlerts, reports: settings.realtimeThreatMonitoring };
}

/** The event types a channel takes: null (every type) or its JSON list. */
export function channelTakes(eventTypes: string | null, type: AlertEventType): boolean {
  if (type === "test") return true;
  if (!eventTypes) return true;
  try {
    const list = JSON.parse(eventTypes) as unknown;
    return Array.isArray(list) ? list.includes(type) : true;
  } catch {
    return true;
  }
}

/**
 * Records what holds now for one organisation and queues the deliveries of the events that fire.
 * Returns the events stored. Database work only: safe inside any `store.write`.
 */
export async function recordEvents(deps: AlertsDeps, orgId: string, events: AlertEvent[], options: RecordOptions = {}): Promise<RecordedEvent[]> {
  const { store } = deps;
  const { alertConditions, orgEvents } = store.t;
  return store.write(async (tx) => {
    const at = deps.now();
    let fire: AlertEvent[];
    if (options.scope) {
      const scope = options.scope;
      const activeRows = await tx.select({ key: alertConditions.key }).from(alertConditions).where(eq(alertConditions.orgId, orgId));
      const update = updateConditions(
        activeRows.map((r) => r.key),
        events,
        scope,
      );
      fire = update.fire;
      for (const cleared of batches(update.cleared)) await tx.delete(alertConditions).where(and(eq(alertConditions.orgId, orgId), inArray(alertConditions.key, cleared)));
    } else {
      const keys = [...new Set(events.map((e) => e.dedupeKey))];
      const activeRows: { key: string }[] = [];
      for (const batch of batches(keys)) activeRows.push(...(await tx.select({ key: alertConditions.key }).from(alertConditions).where(and(eq(alertConditions.orgId, orgId), inArray(alertConditions.key, batch)))));
      const active = new Set(activeRows.map((r) => r.key));
      const seen = new Set<string>();
      fire = events.filter((e) => !active.has(e.dedupeKey) && !seen.has(e.dedupeKey) && seen.add(e.dedupeKey));
    }
    if (!fire.length) return [];
    for (const batch of batches(fire))
      await tx
        .insert(alertConditions)
        .values(batch.map((e) => ({ orgId, key: e.dedupeKey, since: at })))
        .onConflictDoNothing();

    // Settings' toggles: a switched-off group is still tracked (no storm when switched back on)
    // but neither stored nor sent.
    const switches = await categorySwitches(store, orgId);
    const wanted = fire.filter((e) => {
      const category = eventCategory(e.type);
      return category === "dns" ? switches.dns : category === "reports" ? switches.reports : true;
    });
    if (!wanted.length) return [];
    const recorded: RecordedEvent[] = wanted.map((e) => ({ ...e, id: crypto.randomUUID(), occurredAt: at }));
    for (const batch of batches(recorded)) await tx.insert(orgEvents).values(batch.map((e) => ({ id: e.id, orgId, type: e.type, domain: e.domain, data: JSON.stringify(e.data), dedupeKey: e.dedupeKey, occurredAt: at })));
    await queueDeliveries(deps, orgId, recorded);
    return recorded;
  });
}

/** One outbox row per enabled channel that takes each event (the (event, channel) pair is unique). */
export async function queueDeliveries(deps: AlertsDeps, orgId: string, events: { id: string; type: AlertEventType }[], onlyChannelId?: string): Promise<number> {
  const { store } = deps;
  const { alertChannels, alertDeliveries } = store.t;
  const at = deps.now();
  return store.write(async (tx) => {
    const channels = await tx
      .select({ id: alertChannels.id, eventTypes: alertChannels.eventTypes })
      .from(alertChannels)
      .where(and(eq(alertChannels.orgId, orgId), eq(alertChannels.enabled, true), onlyChannelId ? eq(alertChannels.id, onlyChannelId) : undefined));
    const rows = events.flatMap((event) => channels.filter((c) => channelTakes(c.eventTypes, event.type)).map((c) => ({ orgId, eventId: event.id, channelId: c.id, status: "pending", attempts: 0, nextAttemptAt: at, createdAt: at })));
    if (!rows.length) return 0;
    for (const batch of batches(rows)) await tx.insert(alertDeliveries).values(batch).onConflictDoNothing();
    return rows.length;
  });
}
