/**
 * Alert channels, events and thresholds: request schemas (shared by the server and the UI's
 * forms) and the shapes the API answers with.
 */
import { z } from "zod";
import { ALERT_CHANNEL_TYPES, type AlertChannelType } from "../../lib/alerts/channel-types";
import { ALERT_EVENT_TYPES, type AlertEventType } from "../../lib/alerts/events";

export { ALERT_CHANNEL_TYPES, type AlertChannelType };

/** Addresses an email channel may hold. */
export const EMAIL_CHANNEL_MAX_ADDRESSES = 20;
const EMAIL_RE = /^[^\s@,;<>"]+@[^\s@,;<>"]+\.[^\s@,;<>"]+$/;

/** The addresses of an email channel's comma-separated target, lower-cased; or why not. */
export function emailTargets(target: string): { ok: true; addresses: string[] } | { ok: false; message: string } {
  const addresses = [...new Set(target.split(/[,;\s]+/).map((a) => a.trim().toLowerCase()).filter(Boolean))];
  if (!addresses.length) return { ok: false, message: "Enter at least one email address" };
  if (addresses.length > EMAIL_CHANNEL_MAX_ADDRESSES) return { ok: false, message: `At most ${EMAIL_CHANNEL_MAX_ADDRESSES} addresses per channel` };
  const bad = addresses.find((a) => a.length > 254 || !EMAIL_RE.test(a));
  if (bad) return { ok: false, message: `"${bad}" is not a valid email address` };
  return { ok: true, addresses };
}

/** Shape of a channel URL (Slack, Teams, webhook): https (http only when the server allows private hosts). */
export function urlTargetProblem(target: string, allowHttp: boolean): string | null {
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    return "Enter the full URL, starting with https://";
  }
  if (url.protocol !== "https:" && !(allowHttp && url.protocol === "http:")) return "The URL must start with https://";
  if (url.username || url.password) return "The URL must not contain a user name or password";
  if (target.length > 2000) return "The URL is too long";
  return null;
}

const name = z.string({ error: "Enter a name" }).trim().min(1, "Enter a name").max(100, "The name is at most 100 characters");
const target = z.string({ error: "Enter the addresses or URL" }).trim().min(1, "Enter the addresses or URL").max(4000, "The target is too long");
const eventTypes = z
  .array(z.enum(ALERT_EVENT_TYPES as unknown as [AlertEventType, ...AlertEventType[]], { error: "Unknown event type" }))
  .max(ALERT_EVENT_TYPES.length)
  .nullable();

export const createChannelSchema = z
  .object({
    type: z.enum(ALERT_CHANNEL_TYPES, { error: "Type must be email, slack, teams or webhook" }),
    name,
    target,
    /** null or absent: every event type */
    eventTypes: eventTypes.optional(),
    enabled: z.boolean().optional(),
  })
  .strict();
export type CreateChannelInput = z.infer<typeof createChannelSchema>;

export const updateChannelSchema = z
  .object({ name: name.optional(), target: target.optional(), eventTypes: eventTypes.optional(), enabled: z.boolean().optional() })
  .strict();
export type UpdateChannelInput = z.infer<typeof updateChannelSchema>;

export const readEventsSchema = z.object({ ids: z.array(z.string().max(64)).min(1, "Give the ids of the events to mark read").max(500) }).strict();

export interface ChannelView {
  id: string;
  type: AlertChannelType;
  name: string;
  /** addresses, or the URL (shown in full to admins only: a chat or webhook URL lets anyone post) */
  target: string;
  /** null: every event type */
  eventTypes: AlertEventType[] | null;
  enabled: boolean;
  /** a webhook has a signing secret (shown once, in `secret`, when the channel is created) */
  hasSecret: boolean;
  createdAt: string;
  updatedAt: string | null;
  /** only in the answer to POST /api/alerts/channels for a webhook */
  secret?: string;
}

export interface DeliveryView {
  id: string;
  eventId: string;
  eventType: string;
  domain: string | null;
  /** pending | sending | delivered | failed; held (past the alert limit) | summarized (sent in the channel's summary) */
  status: string;
  attempts: number;
  nextAttemptAt: string | null;
  deliveredAt: string | null;
  lastError: string | null;
  createdAt: string;
  log: { attemptedAt: string; ok: boolean; statusCode: number | null; error: string | null }[];
}

/** GET /api/alerts/limit: outbound alerts per channel in any window, and the bounds it may take. */
export interface AlertLimitView {
  perWindow: number;
  windowMinutes: number;
  default: number;
  min: number;
  max: number;
}

export interface EventView {
  id: string;
  type: AlertEventType;
  domain: string | null;
  data: Record<string, unknown>;
  occurredAt: string;
  read: boolean;
  title: string;
  summary: string;
  severity: "critical" | "warning" | "info" | "good";
  /** the app page that shows it */
  link: string;
}

export interface EventsPage {
  events: EventView[];
  page: number;
  pageSize: number;
  total: number;
  unread: number;
}

export const EVENTS_PAGE_SIZE = 20;
