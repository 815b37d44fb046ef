/**
 * The notifications bell: the organisation's events, newest first, read or unread for the
 * signed-in user. "test" events (a channel's "Send a test") and summaries of held alerts go to
 * their channel only: the feed lists every alert itself.
 */
import { and, count, desc, eq, inArray, isNull, notInArray } from "drizzle-orm";
import type { OrgContext } from "../../http/access";
import { describeAlert } from "../../lib/alerts/describe";
import { CHANNEL_ONLY_EVENT_TYPES, type AlertEventType } from "../../lib/alerts/events";
import { EVENTS_PAGE_SIZE, type EventsPage, type EventView } from "./contract";

async function unreadCount(ctx: OrgContext): Promise<number> {
  const { orgEvents, eventReads } = ctx.store.t;
  const { orgId } = ctx.actor;
  const userId = ctx.actor.user.userId;
  const [row] = await ctx.store.db
    .select({ n: count() })
    .from(orgEvents)
    .leftJoin(eventReads, and(eq(eventReads.orgId, orgEvents.orgId), eq(eventReads.eventId, orgEvents.id), eq(eventReads.userId, userId)))
    .where(and(eq(orgEvents.orgId, orgId), notInArray(orgEvents.type, [...CHANNEL_ONLY_EVENT_TYPES]), isNull(eventReads.eventId)));
  return Number(row?.n ?? 0);
}

export async function listEvents(ctx: OrgContext, page: number, pageSize = EVENTS_PAGE_SIZE): Promise<EventsPage> {
  const { orgEvents, eventReads } = ctx.store.t;
  const { orgId } = ctx.actor;
  const userId = ctx.actor.user.userId;
  const where = and(eq(orgEvents.orgId, orgId), notInArray(orgEvents.type, [...CHANNEL_ONLY_EVENT_TYPES]));
  const [{ n } = { n: 0 }] = await ctx.store.db.select({ n: count() }).from(orgEvents).where(where);
  const rows = await ctx.store.db
    .select({ e: orgEvents, readAt: eventReads.readAt })
    .from(orgEvents)
    .leftJoin(eventReads, and(eq(eventReads.orgId, orgEvents.orgId), eq(eventReads.eventId, orgEvents.id), eq(eventReads.userId, userId)))
    .where(where)
    .orderBy(desc(orgEvents.occurredAt), desc(orgEvents.id))
    .limit(pageSize)
    .offset((page - 1) * pageSize);
  const name = { name: "" };
  const events: EventView[] = rows.map(({ e, readAt }) => {
    let data: Record<string, unknown> = {};
    try {
      data = JSON.parse(e.data) as Record<string, unknown>;
    } catch {}
    const type = e.type as AlertEventType;
    const d = describeAlert({ type, domain: e.domain, data, dedupeKey: e.dedupeKey ?? "" }, { organization: name, publicUrl: "" });
    return { id: e.id, type, domain: e.domain, data, occurredAt: e.occurredAt.toISOString(), read: readAt !== null, title: d.title, summary: d.summary, severity: d.severity, link: d.link };
  });
  return { events, page, pageSize, total: Number(n), unread: await unreadCount(ctx) };
}

/** Marks the given events of the organisation read for the user; ids of other organisations are ignored. */
export async function markRead(ctx: OrgContext, ids: string[]): Promise<{ unread: number }> {
  const { orgEvents, eventReads } = ctx.store.t;
  const { orgId } = ctx.actor;
  const userId = ctx.actor.user.userId;
  const at = ctx.now();
  await ctx.store.write(async (tx) => {
    const own = await tx
      .select({ id: orgEvents.id })
      .from(orgEvents)
      .where(and(eq(orgEvents.orgId, orgId), inArray(orgEvents.id, [...new Set(ids)])));
    if (own.length) await tx.insert(eventReads).values(own.map((e) => ({ userId, eventId: e.id, orgId, readAt: at }))).onConflictDoNothing();
  });
  return { unread: await unreadCount(ctx) };
}

/** "Mark all read": every event of the organisation so far. */
export async function markAllRead(ctx: OrgContext): Promise<{ unread: number }> {
  const { orgEvents, eventReads } = ctx.store.t;
  const { orgId } = ctx.actor;
  const userId = ctx.actor.user.userId;
  const at = ctx.now();
  await ctx.store.write(async (tx) => {
    const already = tx.select({ id: eventReads.eventId }).from(eventReads).where(and(eq(eventReads.userId, userId), eq(eventReads.orgId, orgId)));
    const unread = await tx
      .select({ id: orgEvents.id })
      .from(orgEvents)
      .where(and(eq(orgEvents.orgId, orgId), notInArray(orgEvents.type, [...CHANNEL_ONLY_EVENT_TYPES]), notInArray(orgEvents.id, already)));
    for (let i = 0; i < unread.length; i += 500) {
      await tx
        .insert(eventReads)
        .values(unread.slice(i, i + 500).map((e) => ({ userId, eventId: e.id, orgId, readAt: at })))
        .onConflictDoNothing();
    }
  });
  return { unread: 0 };
}
