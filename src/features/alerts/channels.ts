/**
 * Alert channels of an organisation: email addresses, a Slack or Teams incoming webhook, or a
 * generic signed webhook. Admins change them; everyone in the organisation reads them. A
 * webhook's signing secret is stored encrypted with the server key and shown once.
 */
import { and, desc, eq, inArray } from "drizzle-orm";
import type { OrgContext, ServiceContext } from "../../http/access";
import { NotFoundError, ValidationError } from "../../http/errors";
import { newWebhookSecret } from "../../lib/alerts/webhook";
import type { AlertEventType } from "../../lib/alerts/events";
import { nonPublicReason, parseAddress } from "../../lib/net/address";
import { roleAllows } from "../../lib/permissions";
import { encryptSecret } from "../mailin/secret-box";
import { serverKey } from "../mailin/server-key";
import { emailTargets, urlTargetProblem, type ChannelView, type CreateChannelInput, type DeliveryView, type UpdateChannelInput } from "./contract";
import type { alertChannels } from "../../db/schema";

type ChannelRow = typeof alertChannels.$inferSelect;

/** The secret-box context of a channel's secret: a sealed secret cannot be moved to another channel. */
export const channelSecretContext = (channelId: string) => `alert-channel:${channelId}`;

export const privateWebhookHostsAllowed = (ctx: Pick<ServiceContext, "config">) => ctx.config.allowPrivateWebhookHosts;

/** The target as stored, or a ValidationError saying what is wrong with it. */
export function checkedTarget(ctx: Pick<ServiceContext, "config">, type: ChannelRow["type"], target: string): string {
  if (type === "email") {
    const parsed = emailTargets(target);
    if (!parsed.ok) throw new ValidationError(parsed.message, { target: parsed.message });
    return parsed.addresses.join(", ");
  }
  const allow = privateWebhookHostsAllowed(ctx);
  const problem = urlTargetProblem(target, allow);
  if (problem) throw new ValidationError(problem, { target: problem });
  const url = new URL(target);
  const host = url.hostname.replace(/^\[(.*)\]$/, "$1");
  const literal = parseAddress(host);
  const local = /^(.+\.)?localhost\.?$/i.test(host);
  if (!allow && (local || (literal && nonPublicReason(literal)))) {
    const message = "The URL points at a private or local address; alerts are only sent to public addresses";
    throw new ValidationError(message, { target: message });
  }
  return url.toString();
}

/** A chat or webhook URL lets whoever holds it post: members see only where it goes. */
function maskedTarget(row: Pick<ChannelRow, "type" | "target">): string {
  if (row.type === "email") return row.target;
  try {
    const url = new URL(row.target);
    return `${url.origin}/…`;
  } catch {
    return "…";
  }
}

export function parseEventTypes(text: string | null): AlertEventType[] | null {
  if (!text) return null;
  try {
    const list = JSON.parse(text) as unknown;
    return Array.isArray(list) ? (list as AlertEventType[]) : null;
  } catch {
    return null;
  }
}

export function channelView(row: ChannelRow, canManage: boolean): ChannelView {
  return {
    id: row.id,
    type: row.type,
    name: row.name,
    target: canManage ? row.target : maskedTarget(row),
    eventTypes: parseEventTypes(row.eventTypes),
    enabled: row.enabled,
    hasSecret: !!row.secretEncrypted,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt?.toISOString() ?? null,
  };
}

const canManage = (ctx: OrgContext) => roleAllows(ctx.actor.role, "settings:manage");

export async function listChannels(ctx: OrgContext): Promise<ChannelView[]> {
  const { alertChannels } = ctx.store.t;
  const rows = await ctx.store.db.select().from(alertChannels).where(eq(alertChannels.orgId, ctx.actor.orgId)).orderBy(alertChannels.createdAt, alertChannels.name, alertChannels.id);
  return rows.map((row) => channelView(row, canManage(ctx)));
}

/** The organisation's channel `id`, or 404 (also for another organisation's channel). */
export async function channelRow(ctx: Pick<ServiceContext, "store">, orgId: string, id: string): Promise<ChannelRow> {
  const { alertChannels } = ctx.store.t;
  const [row] = await ctx.store.db
    .select()
    .from(alertChannels)
    .where(and(eq(alertChannels.id, id), eq(alertChannels.orgId, orgId)))
    .limit(1);
  if (!row) throw new NotFoundError("No such alert channel.");
  return row;
}

const MAX_CHANNELS = 50;

export async function createChannel(ctx: OrgContext, input: CreateChannelInput): Promise<ChannelView> {
  const { alertChannels } = ctx.store.t;
  const orgId = ctx.actor.orgId;
  const target = checkedTarget(ctx, input.type, input.target);
  const id = crypto.randomUUID();
  const secret = input.type === "webhook" ? newWebhookSecret() : null;
  const secretEncrypted = secret ? encryptSecret(serverKey(ctx), secret, channelSecretContext(id)) : null;
  const row = await ctx.store.write(async (tx) => {
    const existing = await tx.select({ id: alertChannels.id }).from(alertChannels).where(eq(alertChannels.orgId, orgId));
    if (existing.length >= MAX_CHANNELS) throw new ValidationError(`An organization has at most ${MAX_CHANNELS} alert channels.`);
    const [inserted] = await tx
      .insert(alertChannels)
      .values({ id, orgId, type: input.type, name: input.name, target, secretEncrypted, eventTypes: input.eventTypes ? JSON.stringify(input.eventTypes) : null, enabled: input.enabled ?? true, createdAt: ctx.now() })
      .returning();
    return inserted!;
  });
  ctx.log.info("alert_channel_created", { orgId, channelId: id, type: input.type });
  return { ...channelView(row, true), ...(secret ? { secret } : {}) };
}

export async function updateChannel(ctx: OrgContext, id: string, input: UpdateChannelInput): Promise<ChannelView> {
  const { alertChannels } = ctx.store.t;
  const orgId = ctx.actor.orgId;
  const row = await channelRow(ctx, orgId, id);
  const set: Partial<ChannelRow> = { updatedAt: ctx.now() };
  if (input.name !== undefined) set.name = input.name;
  if (input.target !== undefined) set.target = checkedTarget(ctx, row.type, input.target);
  if (input.eventTypes !== undefined) set.eventTypes = input.eventTypes ? JSON.stringify(input.eventTypes) : null;
  if (input.enabled !== undefined) set.enabled = input.enabled;
  const [updated] = await ctx.store.write((tx) =>
    tx
      .update(alertChannels)
      .set(set)
      .where(and(eq(alertChannels.id, id), eq(alertChannels.orgId, orgId)))
      .returning(),
  );
  if (!updated) throw new NotFoundError("No such alert channel.");
  return channelView(updated, true);
}

export async function deleteChannel(ctx: OrgContext, id: string): Promise<void> {
  const { alertChannels } = ctx.store.t;
  const orgId = ctx.actor.orgId;
  const deleted = await ctx.store.write((tx) =>
    tx
      .delete(alertChannels)
      .where(and(eq(alertChannels.id, id), eq(alertChannels.orgId, orgId)))
      .returning({ id: alertChannels.id }),
  );
  if (!deleted.length) throw new NotFoundError("No such alert channel.");
  ctx.log.info("alert_channel_deleted", { orgId, channelId: id });
}

const iso = (d: Date | null | undefined) => (d ? d.toISOString() : null);

/** The channel's delivery log: its latest deliveries, each with every attempt. */
export async function channelDeliveries(ctx: OrgContext, id: string, limit = 50): Promise<DeliveryView[]> {
  const orgId = ctx.actor.orgId;
  await channelRow(ctx, orgId, id);
  const { alertDeliveries, orgEvents, deliveryAttempts } = ctx.store.t;
  const rows = await ctx.store.db
    .select({ d: alertDeliveries, type: orgEvents.type, domain: orgEvents.domain })
    .from(alertDeliveries)
    .innerJoin(orgEvents, and(eq(orgEvents.orgId, alertDeliveries.orgId), eq(orgEvents.id, alertDeliveries.eventId)))
    .where(and(eq(alertDeliveries.channelId, id), eq(alertDeliveries.orgId, orgId)))
    .orderBy(desc(alertDeliveries.createdAt), desc(alertDeliveries.id))
    .limit(limit);
  const ids = rows.map((r) => r.d.id);
  const attempts = ids.length
    ? await ctx.store.db
        .select()
        .from(deliveryAttempts)
        .where(and(eq(deliveryAttempts.orgId, orgId), inArray(deliveryAttempts.deliveryId, ids)))
        .orderBy(deliveryAttempts.attemptedAt)
    : [];
  return rows.map(({ d, type, domain }) => ({
    id: d.id,
    eventId: d.eventId,
    eventType: type,
    domain,
    status: d.status,
    attempts: d.attempts,
    nextAttemptAt: d.status === "pending" ? iso(d.nextAttemptAt) : null,
    deliveredAt: iso(d.deliveredAt),
    lastError: d.lastError,
    createdAt: d.createdAt.toISOString(),
    log: attempts.filter((a) => a.deliveryId === d.id).map((a) => ({ attemptedAt: a.attemptedAt.toISOString(), ok: a.ok, statusCode: a.statusCode, error: a.error })),
  }));
}

/** The name of the channel Settings' "Email notifications" switch keeps. */
export const NOTIFICATIONS_CHANNEL_NAME = "Email notifications";

/**
 * Settings' "Email notifications": on keeps an email channel enabled (creating one to the
 * contact email, or the owners' addresses, when the organisation has none); off disables the
 * organisation's email channels. Database work only (runs in the settings save's write).
 */
export async function syncEmailNotifications(ctx: Pick<ServiceContext, "store" | "now">, orgId: string, on: boolean, addresses: string[]): Promise<void> {
  const { alertChannels } = ctx.store.t;
  await ctx.store.write(async (tx) => {
    const emails = await tx
      .select()
      .from(alertChannels)
      .where(and(eq(alertChannels.orgId, orgId), eq(alertChannels.type, "email")));
    if (!on) {
      if (emails.some((c) => c.enabled)) await tx.update(alertChannels).set({ enabled: false, updatedAt: ctx.now() }).where(and(eq(alertChannels.orgId, orgId), eq(alertChannels.type, "email")));
      return;
    }
    if (emails.length) {
      if (!emails.some((c) => c.enabled)) await tx.update(alertChannels).set({ enabled: true, updatedAt: ctx.now() }).where(and(eq(alertChannels.orgId, orgId), eq(alertChannels.type, "email")));
      return;
    }
    const parsed = emailTargets(addresses.join(","));
    if (!parsed.ok) return;
    await tx.insert(alertChannels).values({ orgId, type: "email", name: NOTIFICATIONS_CHANNEL_NAME, target: parsed.addresses.join(", "), createdAt: ctx.now() });
  });
}

/** A "test" event stored for the channel and its delivery queued (sent by the caller, outside the write). */
export async function queueTestDelivery(ctx: OrgContext, id: string): Promise<string> {
  const orgId = ctx.actor.orgId;
  await channelRow(ctx, orgId, id);
  const { orgEvents, alertDeliveries } = ctx.store.t;
  const at = ctx.now();
  const eventId = crypto.randomUUID();
  const deliveryId = crypto.randomUUID();
  await ctx.store.write(async (tx) => {
    await tx.insert(orgEvents).values({ id: eventId, orgId, type: "test", domain: null, data: JSON.stringify({ requestedBy: ctx.actor.user.name }), dedupeKey: null, occurredAt: at });
    await tx.insert(alertDeliveries).values({ id: deliveryId, orgId, eventId, channelId: id, status: "pending", attempts: 0, nextAttemptAt: at, createdAt: at });
  });
  return deliveryId;
}
