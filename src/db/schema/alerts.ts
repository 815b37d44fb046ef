import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { organizations, users } from "./accounts";
import { createdAt, id, timestamp } from "./columns";
import { domains } from "./domains";
import { ALERT_CHANNEL_TYPES, type AlertChannelType } from "../../lib/alerts/channel-types";

/**
 * What the server noticed about an organisation (a DNS change, a failing source, a trial
 * ending, …): stored once per cause, listed in the notifications bell and `GET /api/events`,
 * and delivered to the organisation's alert channels through `alert_deliveries` (the outbox,
 * written in the same transaction as the event).
 */
export const orgEvents = sqliteTable(
  "org_events",
  {
    id: id(),
    orgId: text("org_id").notNull().references(() => organizations.id, { onDelete: "cascade" }),
    type: text("type").notNull(),
    /** the domain name it is about, if any */
    domain: text("domain"),
    /** JSON object: what changed, before and after, figures */
    data: text("data").notNull(),
    /** the condition that raised it (one event per cause until the condition clears) */
    dedupeKey: text("dedupe_key"),
    occurredAt: timestamp("occurred_at").notNull(),
  },
  (t) => [index("org_events_org_time_idx").on(t.orgId, t.occurredAt)],
);

/** Conditions currently true for an organisation (so the same cause does not alert again). */
export const alertConditions = sqliteTable(
  "alert_conditions",
  {
    orgId: text("org_id").notNull().references(() => organizations.id, { onDelete: "cascade" }),
    key: text("key").notNull(),
    since: timestamp("since").notNull(),
  },
  (t) => [primaryKey({ columns: [t.orgId, t.key] })],
);

/** The last complete DNS check of a domain, as JSON, to compare the next one with. */
export const dnsSnapshots = sqliteTable("dns_snapshots", {
  domainId: text("domain_id").primaryKey().references(() => domains.id, { onDelete: "cascade" }),
  orgId: text("org_id").notNull().references(() => organizations.id, { onDelete: "cascade" }),
  snapshot: text("snapshot").notNull(),
  checkedAt: timestamp("checked_at").notNull(),
});

export { ALERT_CHANNEL_TYPES, type AlertChannelType };

/** Where an organisation's events go. */
export const alertChannels = sqliteTable(
  "alert_channels",
  {
    id: id(),
    orgId: text("org_id").notNull().references(() => organizations.id, { onDelete: "cascade" }),
    type: text("type", { enum: ALERT_CHANNEL_TYPES }).notNull(),
    name: text("name").notNull(),
    /** comma-separated addresses (email) or the URL (slack, teams, webhook) */
    target: text("target").notNull(),
    /** webhook signing secret, encrypted like mailbox passwords; shown once at creation */
    secretEncrypted: text("secret_encrypted"),
    /** JSON array of event types it receives; null: every type */
    eventTypes: text("event_types"),
    enabled: integer("enabled", { mode: "boolean" }).notNull().default(true),
    createdAt: createdAt(),
    updatedAt: timestamp("updated_at"),
  },
  (t) => [index("alert_channels_org_idx").on(t.orgId)],
);

/** The outbox: one row per event and channel (the idempotency key), delivered by the scheduler. */
export const alertDeliveries = sqliteTable(
  "alert_deliveries",
  {
    id: id(),
    orgId: text("org_id").notNull().references(() => organizations.id, { onDelete: "cascade" }),
    eventId: text("event_id").notNull().references(() => orgEvents.id, { onDelete: "cascade" }),
    channelId: text("channel_id").notNull().references(() => alertChannels.id, { onDelete: "cascade" }),
    /** pending | delivered | failed */
    status: text("status").notNull().default("pending"),
    attempts: integer("attempts").notNull().default(0),
    nextAttemptAt: timestamp("next_attempt_at"),
    lastError: text("last_error"),
    deliveredAt: timestamp("delivered_at"),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("alert_deliveries_event_channel_unique").on(t.eventId, t.channelId), index("alert_deliveries_due_idx").on(t.status, t.nextAttemptAt), index("alert_deliveries_channel_idx").on(t.channelId, t.createdAt)],
);

/** Every delivery attempt and its result (the channel's delivery log). */
export const deliveryAttempts = sqliteTable(
  "delivery_attempts",
  {
    id: id(),
    orgId: text("org_id").notNull().references(() => organizations.id, { onDelete: "cascade" }),
    deliveryId: text("delivery_id").notNull().references(() => alertDeliveries.id, { onDelete: "cascade" }),
    attemptedAt: timestamp("attempted_at").notNull(),
    ok: integer("ok", { mode: "boolean" }).notNull(),
    /** HTTP status of a webhook / chat delivery */
    statusCode: integer("status_code"),
    error: text("error"),
  },
  (t) => [index("delivery_attempts_delivery_idx").on(t.deliveryId, t.attemptedAt)],
);

/** Which events a user has read (the notifications bell is per user). */
export const eventReads = sqliteTable(
  "event_reads",
  {
    userId: text("user_id").notNull().references(() => users.id, { onDelete: "cascade" }),
    eventId: text("event_id").notNull().references(() => orgEvents.id, { onDelete: "cascade" }),
    orgId: text("org_id").notNull().references(() => organizations.id, { onDelete: "cascade" }),
    readAt: timestamp("read_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.userId, t.eventId] }), index("event_reads_org_user_idx").on(t.orgId, t.userId)],
);
