/**
 * The generic webhook: its JSON payload, its signature header and its retry schedule.
 *
 *   X-Dmarcwarden-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">
 *
 * The receiver recomputes the HMAC over the exact bytes it received with the channel's
 * secret, compares in constant time, and refuses timestamps too far from its clock (replays).
 */
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import type { AlertEventType } from "./events";

export const WEBHOOK_SIGNATURE_HEADER = "X-Dmarcwarden-Signature";
/** how far a signature's timestamp may be from the receiver's clock, in seconds */
export const WEBHOOK_SIGNATURE_TOLERANCE_SECONDS = 300;

export interface WebhookPayload {
  /** the event's id: the same on every retry, so a receiver can drop duplicates */
  id: string;
  type: AlertEventType;
  /** ISO 8601 */
  occurredAt: string;
  organization: { id: string; name: string };
  domain?: string;
  data: Record<string, unknown>;
}

export function webhookPayload(input: { id: string; type: AlertEventType; occurredAt: Date; organization: { id: string; name: string }; domain?: string | null; data: Record<string, unknown> }): WebhookPayload {
  return {
    id: input.id,
    type: input.type,
    occurredAt: input.occurredAt.toISOString(),
    organization: { id: input.organization.id, name: input.organization.name },
    ...(input.domain ? { domain: input.domain } : {}),
    data: input.data,
  };
}

/** A new channel secret: shown once when the channel is created. */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(24).toString("base64url")}`;
}

const unixSeconds = (t: number | Date) => (typeof t === "number" ? Math.floor(t) : Math.floor(t.getTime() / 1000));

function hmacHex(secret: string, t: number, body: string | Uint8Array): string {
  return createHmac("sha256", secret).update(`${t}.`).update(body).digest("hex");
}

/** The signature header's value for `body` sent at `t` (unix seconds or a Date). */
export function signWebhook(secret: string, body: string | Uint8Array, t: number | Date): string {
  const seconds = unixSeconds(t);
  return `t=${seconds},v1=${hmacHex(secret, seconds, body)}`;
}

/**
 * True when `header` signs `body` with `secret` and its timestamp is within `toleranceSeconds`
 * of `now`. Any v1 entry may match (several are sent while a secret is being rotated).
 */
export function verifyWebhookSignature(secret: string, header: string | null | undefined, body: string | Uint8Array, now: number | Date, toleranceSeconds = WEBHOOK_SIGNATURE_TOLERANCE_SECONDS): boolean {
  if (!header) return false;
  let t: number | null = null;
  const signatures: string[] = [];
  for (const part of header.split(",")) {
    const eq = part.indexOf("=");
    if (eq < 0) continue;
    const name = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (name === "t" && /^\d{1,12}$/.test(value)) t = Number(value);
    else if (name === "v1" && /^[0-9a-f]{64}$/i.test(value)) signatures.push(value.toLowerCase());
  }
  if (t === null || !signatures.length) return false;
  if (Math.abs(unixSeconds(now) - t) > toleranceSeconds) return false;
  const expected = Buffer.from(hmacHex(secret, t, body), "hex");
  let matched = false;
  // compare every entry, so the time taken does not tell which one matched
  for (const signature of signatures) matched = timingSafeEqual(expected, Buffer.from(signature, "hex")) || matched;
  return matched;
}

/** Minutes after the first try at which each try is made: 5 tries over an hour, further apart each time. */
export const WEBHOOK_RETRY_OFFSETS_MINUTES = [0, 1, 5, 20, 60] as const;
export const WEBHOOK_MAX_ATTEMPTS = WEBHOOK_RETRY_OFFSETS_MINUTES.length;

/**
 * When to make the next try after try number `attempt` (1 = the first) failed, counted from
 * the first try; null when that was the last one.
 */
export function nextAttemptAt(attempt: number, firstAt: Date): Date | null {
  if (!Number.isInteger(attempt) || attempt < 1) throw new RangeError("attempt counts from 1");
  const offset = WEBHOOK_RETRY_OFFSETS_MINUTES[attempt];
  return offset === undefined ? null : new Date(firstAt.getTime() + offset * 60_000);
}

/**
 * Whether a failed try is worth repeating: network errors (null), timeouts, rate limits and
 * server errors are; an answer saying the hook is gone (404, 410) or the request is refused
 * for good (other 4xx) is not.
 */
export function shouldRetryDelivery(status: number | null): boolean {
  if (status === null) return true;
  if (status >= 200 && status < 300) return false;
  if (status === 408 || status === 425 || status === 429) return true;
  return status >= 500 || status < 400;
}
