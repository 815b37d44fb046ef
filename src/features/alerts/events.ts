/**
 * Organisation events and the outbox. `recordEvents` is the one way an event is raised: inside
 * the caller's `store.write` (a nested write joins it), it runs the one-alert-per-cause state
 * machine against `alert_conditions`, stores the events that fire in `org_events` and writes one
 * `alert_deliveries` row per enabled channel that takes the event's type — in the same
 * transaction as the cause, so a crash loses no alert. Delivery happens later (delivery.ts).
 */
import { and, eq, inArray, sql, type SQL } from "drizzle-orm";
import type { StoreCore } from "../../db/store";
import { updateConditions } from "../../lib/alerts/conditions";
import { collectBetween } from "../../lib/memory";
import { insertRows, ROWS_PER_STATEMENT } from "../../db/json-rows";
import { CHANNEL_ONLY_EVENT_TYPES, eventCategory, type AlertEvent, type AlertEventType } from "../../lib/alerts/events";
import { alertSettingsOf } from "../settings/service";
import { deliveryRoom } from "./volume";

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
  /**
   * The events of one large report (src/lib/memory.ts): written a statement's worth at a time
   * (conditions, events, deliveries) with collectWhenGrown between, so what one part left
   * behind is collected before the next adds to it. Other callers never pay for the check.
   */
  large?: boolean;
}

export interface RecordedEvent extends AlertEvent {
  id: string;
  occurredAt: Date;
}

/*
 * Rows (or condition keys) per statement (ROWS_PER_STATEMENT): a report can raise thousands of
 * events at once, and PostgreSQL takes at most 65,535 parameters in one statement (the keys
 * looked up or cleared). Rows go in as one JSON parameter per statement (insertRows): a report
 * with thousands of new failing sources once had drizzle build and bind a parameter per value.
 */
const batches = <T>(items: T[]): T[][] => Array.from({ length: Math.ceil(items.length / ROWS_PER_STATEMENT) }, (_, i) => items.slice(i * ROWS_PER_STATEMENT, (i + 1) * ROWS_PER_STATEMENT));

/** epoch seconds, as every timestamp column stores them (src/db/schema/columns.ts, schema-pg/columns.ts) */
const seconds = (at: Date) => sql`${Math.floor(at.getTime() / 1000)}`;
const bigint = (store: StoreCore, value: SQL) => (store.dialect === "postgres" ? sql`${value}::bigint` : value);

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
  if (CHANNEL_ONLY_EVENT_TYPES.includes(type)) return true;
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
  const { alertConditions } = store.t;
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
    // Settings' toggles: a switched-off group is still tracked (no storm when switched back on)
    // but neither stored nor sent.
    const switches = await categorySwitches(store, orgId);
    const recorded: RecordedEvent[] = [];
    const parts = options.large ? batches(fire) : [fire];
    const between = collectBetween(!!options.large);
    for (const part of parts) {
      await insertRows(
        store,
        { table: "alert_conditions", columns: ["org_id", "since", "key"], fixed: [sql`${orgId}`, bigint(store, seconds(at))], tail: sql`ON CONFLICT DO NOTHING` },
        part.map((e) => [e.dedupeKey]),
      );
      const wanted: RecordedEvent[] = [];
      for (const e of part) {
        const category = eventCategory(e.type);
        if (category === "dns" ? switches.dns : category === "reports" ? switches.reports : true) wanted.push({ ...e, id: crypto.randomUUID(), occurredAt: at });
      }
      if (wanted.length) {
        await insertRows(
          store,
          { table: "org_events", columns: ["org_id", "occurred_at", "id", "type", "domain", "data", "dedupe_key"], fixed: [sql`${orgId}`, bigint(store, seconds(at))] },
          wanted.map((e) => [e.id, e.type, e.domain, JSON.stringify(e.data), e.dedupeKey]),
        );
        await queueDeliveries(deps, orgId, wanted);
        recorded.push(...wanted);
      }
      between();
    }
    return recorded;
  });
}

/**
 * One outbox row per enabled channel that takes each event (the (event, channel) pair is unique):
 * "pending" while the channel's window has room (volume.ts), "held" for its summary past that.
 */
export async function queueDeliveries(deps: AlertsDeps, orgId: string, events: { id: string; type: AlertEventType }[], onlyChannelId?: string): Promise<number> {
  const { store } = deps;
  const { alertChannels } = store.t;
  const at = deps.now();
  return store.write(async (tx) => {
    const channels = await tx
      .select({ id: alertChannels.id, eventTypes: alertChannels.eventTypes })
      .from(alertChannels)
      .where(and(eq(alertChannels.orgId, orgId), eq(alertChannels.enabled, true), onlyChannelId ? eq(alertChannels.id, onlyChannelId) : undefined));
    const room = await deliveryRoom(deps, orgId, channels.map((c) => c.id));
    const rows = { pending: [] as string[][], held: [] as string[][] };
    for (const event of events) {
      for (const c of channels) {
        if (!channelTakes(c.eventTypes, event.type)) continue;
        const left = room.get(c.id) ?? 0;
        if (left > 0) room.set(c.id, left - 1);
        rows[left > 0 ? "pending" : "held"].push([crypto.randomUUID(), event.id, c.id]);
      }
    }
    for (const status of ["pending", "held"] as const) {
      if (!rows[status].length) continue;
      await insertRows(
        store,
        {
          table: "alert_deliveries",
          columns: ["org_id", "status", "attempts", "next_attempt_at", "created_at", "id", "event_id", "channel_id"],
          fixed: [sql`${orgId}`, sql`${status}`, sql.raw("0"), bigint(store, seconds(at)), bigint(store, seconds(at))],
          tail: sql`ON CONFLICT DO NOTHING`,
        },
        rows[status],
      );
    }
    return rows.pending.length + rows.held.length;
  });
}
