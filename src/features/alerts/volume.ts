/**
 * The bound on outbound alerts (src/lib/alerts/volume.ts), kept in the outbox itself so that it
 * holds across restarts and nodes: a channel's deliveries in the window are counted from
 * `alert_deliveries` inside the write that queues new ones (SQLite's one writer, PostgreSQL's
 * SERIALIZABLE), deliveries past the limit are stored as "held", and a summary replaces them
 * once the window has room — one write that turns the held rows into "summarized" and queues
 * the summary, so of two nodes trying at once only one finds anything to summarize.
 */
import { and, count, eq, gt, inArray, ne, notInArray } from "drizzle-orm";
import type { DB } from "../../db";
import type { Logger } from "../../log";
import { SUMMARY_EVENT_TYPE } from "../../lib/alerts/events";
import { ALERT_WINDOW_SECONDS, HeldTally } from "../../lib/alerts/volume";
import { alertSettingsOf } from "../settings/service";
import type { AlertsDeps } from "./events";

/** Statuses of deliveries that were never sent themselves (they do not count towards the limit). */
const NOT_SENT = ["held", "summarized"];

/** Deliveries per channel in the window ending at `now` that count towards the limit ("Send a test" does not). */
async function sentInWindow(db: DB, store: AlertsDeps["store"], orgId: string, channelIds: string[], now: Date): Promise<Map<string, number>> {
  if (!channelIds.length) return new Map();
  const { alertDeliveries: d, orgEvents: e } = store.t;
  const since = new Date(now.getTime() - ALERT_WINDOW_SECONDS * 1000);
  const rows = await db
    .select({ channelId: d.channelId, n: count() })
    .from(d)
    .innerJoin(e, and(eq(e.orgId, d.orgId), eq(e.id, d.eventId)))
    .where(and(eq(d.orgId, orgId), inArray(d.channelId, channelIds), gt(d.createdAt, since), notInArray(d.status, NOT_SENT), ne(e.type, "test")))
    .groupBy(d.channelId);
  return new Map(rows.map((r) => [r.channelId, Number(r.n)]));
}

/**
 * How many more deliveries each channel may be sent now: the organisation's limit less what the
 * window holds, and none while the channel has held deliveries (they go first, as the summary).
 * Inside the caller's write.
 */
export async function deliveryRoom(deps: AlertsDeps, orgId: string, channelIds: string[]): Promise<Map<string, number>> {
  const { store } = deps;
  const { alertDeliveries: d } = store.t;
  if (!channelIds.length) return new Map();
  const limit = (await alertSettingsOf({ store }, orgId)).alertsPerWindow;
  const sent = await sentInWindow(store.db, store, orgId, channelIds, deps.now());
  const holding = await store.db
    .selectDistinct({ channelId: d.channelId })
    .from(d)
    .where(and(eq(d.status, "held"), eq(d.orgId, orgId), inArray(d.channelId, channelIds)));
  const held = new Set(holding.map((r) => r.channelId));
  return new Map(channelIds.map((id) => [id, held.has(id) ? 0 : Math.max(0, limit - (sent.get(id) ?? 0))]));
}

/** One channel's held deliveries into one summary, if the window has room for it. Returns how many it sums up (0: none queued). */
async function summarizeChannel(deps: AlertsDeps, orgId: string, channelId: string): Promise<number> {
  const { store } = deps;
  const { alertDeliveries: d, orgEvents: e } = store.t;
  return store.write(async (tx) => {
    const now = deps.now();
    const limit = (await alertSettingsOf({ store }, orgId)).alertsPerWindow;
    if (((await sentInWindow(tx, store, orgId, [channelId], now)).get(channelId) ?? 0) >= limit) return 0;
    const rows = await tx
      .select({ type: e.type, domain: e.domain, data: e.data, occurredAt: e.occurredAt })
      .from(d)
      .innerJoin(e, and(eq(e.orgId, d.orgId), eq(e.id, d.eventId)))
      .where(and(eq(d.orgId, orgId), eq(d.channelId, channelId), eq(d.status, "held")));
    if (!rows.length) return 0;
    const tally = new HeldTally();
    for (const row of rows) {
      let data: Record<string, unknown> = {};
      try {
        data = JSON.parse(row.data) as Record<string, unknown>;
      } catch {}
      tally.add({ type: row.type, domain: row.domain, data, occurredAt: row.occurredAt });
    }
    await tx
      .update(d)
      .set({ status: "summarized", nextAttemptAt: null })
      .where(and(eq(d.orgId, orgId), eq(d.channelId, channelId), eq(d.status, "held")));
    const eventId = crypto.randomUUID();
    await tx.insert(e).values({ id: eventId, orgId, type: SUMMARY_EVENT_TYPE, domain: null, data: JSON.stringify(tally.data(limit)), dedupeKey: null, occurredAt: now });
    await tx.insert(d).values({ orgId, eventId, channelId, status: "pending", attempts: 0, nextAttemptAt: now, createdAt: now });
    return tally.count;
  });
}

/**
 * Queues a summary for every channel holding deliveries whose window has room again (the
 * delivery scheduler's tick, before it sends what is due). Returns how many were queued.
 */
export async function summarizeHeld(deps: AlertsDeps & { log?: Logger }): Promise<number> {
  const { alertDeliveries: d } = deps.store.t;
  const holding = await deps.store.db.selectDistinct({ orgId: d.orgId, channelId: d.channelId }).from(d).where(eq(d.status, "held"));
  let queued = 0;
  const limits = new Map<string, number>();
  for (const { orgId, channelId } of holding) {
    try {
      // a read first: a window still full needs no write (checked again inside it)
      let limit = limits.get(orgId);
      if (limit === undefined) limits.set(orgId, (limit = (await alertSettingsOf(deps, orgId)).alertsPerWindow));
      if (((await sentInWindow(deps.store.db, deps.store, orgId, [channelId], deps.now())).get(channelId) ?? 0) >= limit) continue;
      const held = await summarizeChannel(deps, orgId, channelId);
      if (!held) continue;
      queued++;
      deps.log?.info("alert_summary_queued", { orgId, channelId, held });
    } catch (error) {
      deps.log?.error("alert_summary_failed", { orgId, channelId, error: String(error) });
    }
  }
  return queued;
}
