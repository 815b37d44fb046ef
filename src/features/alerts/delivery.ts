/**
 * Delivery of the outbox (`alert_deliveries`): a scheduler claims due rows, sends each to its
 * channel outside any transaction, and records every attempt. At least once: a row is claimed
 * by moving its next attempt a lease ahead (one atomic UPDATE … RETURNING, so two nodes never
 * both send it); a node that dies mid-send lets the lease lapse and the row is sent again —
 * with the same event id (payload `id`, `Idempotency-Key`), so receivers can drop the repeat.
 */
import { alertsSent } from "../metrics/registry";
import { and, eq, inArray, lte, or } from "drizzle-orm";
import type { AppDeps } from "../../deps";
import { slackMessage, teamsMessage } from "../../lib/alerts/chat";
import { describeAlert } from "../../lib/alerts/describe";
import { periodic } from "../../lib/periodic";
import type { AlertEvent, AlertEventType } from "../../lib/alerts/events";
import { nextAttemptAt, shouldRetryDelivery, signWebhook, webhookPayload, WEBHOOK_MAX_ATTEMPTS, WEBHOOK_SIGNATURE_HEADER } from "../../lib/alerts/webhook";
import { alertMail } from "../mail/templates";
import { brandingFor, mailBaseFor } from "../branding/service";
import { decryptSecret } from "../mailin/secret-box";
import { OutboundError, outboundFetch, type OutboundPolicy } from "../net/outbound";
import { serverKey } from "../mailin/server-key";
import { organizationName } from "../orgs/service";
import { alertSettingsOf } from "../settings/service";
import { channelSecretContext } from "./channels";
import { emailTargets } from "./contract";
import { summarizeHeld } from "./volume";

export type DeliveryDeps = Pick<AppDeps, "store" | "now" | "log" | "config" | "mailer" | "resolver" | "secretKey" | "stripe">;

/** How long a claimed delivery is held before another node may try it (a send times out well before). */
export const DELIVERY_LEASE_SECONDS = 120;
const SEND_TIMEOUT_MS = 15_000;
/** Rows claimed per tick. */
const BATCH = 25;

export interface AttemptResult {
  ok: boolean;
  statusCode: number | null;
  error: string | null;
  /** worth trying again later */
  retry: boolean;
}

interface Loaded {
  delivery: { id: string; orgId: string; attempts: number; createdAt: Date };
  event: { id: string; type: AlertEventType; domain: string | null; data: Record<string, unknown>; dedupeKey: string | null; occurredAt: Date };
  channel: { id: string; type: "email" | "slack" | "teams" | "webhook"; target: string; secretEncrypted: string | null; enabled: boolean };
  organization: { id: string; name: string };
}

/** Alert channels reach public addresses over https only, unless the operator allows private ones. */
const channelPolicy = (deps: DeliveryDeps): OutboundPolicy => ({ allowPrivate: deps.config.allowPrivateWebhookHosts, flag: "--allow-private-webhook-hosts" });

async function post(deps: DeliveryDeps, target: string, body: string, headers: Record<string, string>): Promise<AttemptResult> {
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    return { ok: false, statusCode: null, error: "the channel URL is not valid", retry: false };
  }
  try {
    const res = await outboundFetch(deps, url, { method: "POST", body, headers: { "content-type": "application/json", "user-agent": "dmarcwarden-alerts", ...headers }, timeoutMs: SEND_TIMEOUT_MS }, channelPolicy(deps));
    // the body is not needed, and the connection is not kept
    await res.body?.cancel().catch(() => {});
    if (res.status >= 200 && res.status < 300) return { ok: true, statusCode: res.status, error: null, retry: false };
    return { ok: false, statusCode: res.status, error: `the receiver answered HTTP ${res.status}`, retry: shouldRetryDelivery(res.status) };
  } catch (error) {
    // a refused address stays refused; a failed look-up may work on the next attempt
    if (error instanceof OutboundError) return { ok: false, statusCode: null, error: error.message, retry: error.kind === "unresolved" };
    const timeout = error instanceof Error && (error.name === "TimeoutError" || error.name === "AbortError");
    return { ok: false, statusCode: null, error: timeout ? `no answer within ${SEND_TIMEOUT_MS / 1000} s` : `could not connect: ${error instanceof Error ? error.message : String(error)}`, retry: true };
  }
}

/** Sends one event to one channel now. Never throws. */
export async function sendToChannel(deps: DeliveryDeps, item: Loaded): Promise<AttemptResult> {
  const { event, channel, organization } = item;
  const alert: AlertEvent = { type: event.type, domain: event.domain, data: event.data, dedupeKey: event.dedupeKey ?? "" };
  // links point at the MSP's own hostname when it set one (--public-url otherwise)
  const context = { organization: { name: organization.name }, publicUrl: await mailBaseFor(deps, organization.id) };
  try {
    switch (channel.type) {
      case "email": {
        if (!deps.mailer) return { ok: false, statusCode: null, error: "outgoing mail is off on this server (--mail-relay is not set)", retry: false };
        const parsed = emailTargets(channel.target);
        if (!parsed.ok) return { ok: false, statusCode: null, error: parsed.message, retry: false };
        // white-label: the organisation's own or its MSP's branding (the product's otherwise)
        const brand = await brandingFor(deps, organization.id);
        await deps.mailer.send(alertMail({ to: parsed.addresses.join(", "), organization: organization.name, alert: describeAlert(alert, context), brand: brand.source === "default" ? null : brand }));
        return { ok: true, statusCode: null, error: null, retry: false };
      }
      case "slack":
        return await post(deps, channel.target, JSON.stringify(slackMessage(alert, context)), {});
      case "teams":
        return await post(deps, channel.target, JSON.stringify(teamsMessage(alert, context)), {});
      case "webhook": {
        if (!channel.secretEncrypted) return { ok: false, statusCode: null, error: "the channel has no signing secret", retry: false };
        const secret = decryptSecret(serverKey(deps), channel.secretEncrypted, channelSecretContext(channel.id));
        const body = JSON.stringify(webhookPayload({ id: event.id, type: event.type, occurredAt: event.occurredAt, organization, domain: event.domain, data: event.data }));
        return await post(deps, channel.target, body, { [WEBHOOK_SIGNATURE_HEADER]: signWebhook(secret, body, deps.now()), "idempotency-key": event.id });
      }
    }
  } catch (error) {
    // the mail relay refused or was unreachable: tried again on the schedule
    const message = error instanceof Error ? error.message : String(error);
    return { ok: false, statusCode: null, error: message.slice(0, 500), retry: true };
  }
}

async function load(deps: DeliveryDeps, deliveryId: string): Promise<Loaded | null> {
  const { alertDeliveries, orgEvents, alertChannels } = deps.store.t;
  const [row] = await deps.store.db
    .select({ d: alertDeliveries, e: orgEvents, c: alertChannels })
    .from(alertDeliveries)
    .innerJoin(orgEvents, and(eq(orgEvents.orgId, alertDeliveries.orgId), eq(orgEvents.id, alertDeliveries.eventId)))
    .innerJoin(alertChannels, and(eq(alertChannels.orgId, alertDeliveries.orgId), eq(alertChannels.id, alertDeliveries.channelId)))
    .where(eq(alertDeliveries.id, deliveryId))
    .limit(1);
  if (!row) return null;
  const orgName = await organizationName(deps, row.d.orgId);
  if (orgName === null) return null;
  const settingsName = (await alertSettingsOf(deps, row.d.orgId)).organizationName;
  let data: Record<string, unknown> = {};
  try {
    data = JSON.parse(row.e.data) as Record<string, unknown>;
  } catch {}
  return {
    delivery: { id: row.d.id, orgId: row.d.orgId, attempts: row.d.attempts, createdAt: row.d.createdAt },
    event: { id: row.e.id, type: row.e.type as AlertEventType, domain: row.e.domain, data, dedupeKey: row.e.dedupeKey, occurredAt: row.e.occurredAt },
    channel: { id: row.c.id, type: row.c.type, target: row.c.target, secretEncrypted: row.c.secretEncrypted, enabled: row.c.enabled },
    organization: { id: row.d.orgId, name: settingsName || orgName },
  };
}

/** Claims one due delivery for this node: true when this call got it. */
async function claim(deps: DeliveryDeps, id: string, now: Date): Promise<boolean> {
  const { alertDeliveries } = deps.store.t;
  const until = new Date(now.getTime() + DELIVERY_LEASE_SECONDS * 1000);
  const rows = await deps.store.write((tx) =>
    tx
      .update(alertDeliveries)
      .set({ status: "sending", nextAttemptAt: until })
      .where(and(eq(alertDeliveries.id, id), inArray(alertDeliveries.status, ["pending", "sending"]), lte(alertDeliveries.nextAttemptAt, now)))
      .returning({ id: alertDeliveries.id }),
  );
  return rows.length === 1;
}

/** Records one attempt and moves the delivery on: delivered, retried later, or failed for good. */
async function settle(deps: DeliveryDeps, item: Loaded, result: AttemptResult, at: Date): Promise<void> {
  const { alertDeliveries, deliveryAttempts } = deps.store.t;
  const attempt = item.delivery.attempts + 1;
  const next = result.ok || !result.retry ? null : nextAttemptAt(attempt, item.delivery.createdAt);
  // a retry time already past (a slow send, a node that was down) is simply due now
  const nextAt = next && next.getTime() < at.getTime() ? at : next;
  await deps.store.write(async (tx) => {
    await tx.insert(deliveryAttempts).values({ orgId: item.delivery.orgId, deliveryId: item.delivery.id, attemptedAt: at, ok: result.ok, statusCode: result.statusCode, error: result.error });
    await tx
      .update(alertDeliveries)
      .set(
        result.ok
          ? { status: "delivered", attempts: attempt, deliveredAt: at, nextAttemptAt: null, lastError: null }
          : nextAt && attempt < WEBHOOK_MAX_ATTEMPTS
            ? { status: "pending", attempts: attempt, nextAttemptAt: nextAt, lastError: result.error }
            : { status: "failed", attempts: attempt, nextAttemptAt: null, lastError: result.error },
      )
      .where(eq(alertDeliveries.id, item.delivery.id));
  });
}

/** Claims, sends and settles one delivery by id. Null when another node has it or it is not due. */
export async function deliverOne(deps: DeliveryDeps, id: string): Promise<AttemptResult | null> {
  const now = deps.now();
  if (!(await claim(deps, id, now))) return null;
  const item = await load(deps, id);
  if (!item) return null;
  const result: AttemptResult = item.channel.enabled || item.event.type === "test" ? await sendToChannel(deps, item) : { ok: false, statusCode: null, error: "the channel is switched off", retry: false };
  await settle(deps, item, result, deps.now());
  alertsSent.inc({ channel: item.channel.type, outcome: result.ok ? "ok" : "error" });
  deps.log.info("alert_delivery", { deliveryId: id, channelId: item.channel.id, type: item.channel.type, event: item.event.type, ok: result.ok, status: result.statusCode ?? "", attempt: item.delivery.attempts + 1 });
  return result;
}

/**
 * Sends every delivery due now (pending, or claimed by a node whose lease lapsed), after queueing
 * the summaries of held deliveries whose window has room again. Returns how many were tried.
 */
export async function deliverDue(deps: DeliveryDeps, concurrency = 4): Promise<number> {
  const { alertDeliveries } = deps.store.t;
  await summarizeHeld(deps);
  const now = deps.now();
  const due = await deps.store.db
    .select({ id: alertDeliveries.id })
    .from(alertDeliveries)
    .where(and(or(eq(alertDeliveries.status, "pending"), eq(alertDeliveries.status, "sending")), lte(alertDeliveries.nextAttemptAt, now)))
    .orderBy(alertDeliveries.nextAttemptAt)
    .limit(BATCH);
  let next = 0;
  let tried = 0;
  const worker = async () => {
    while (next < due.length) {
      const { id } = due[next++]!;
      try {
        if (await deliverOne(deps, id)) tried++;
      } catch (error) {
        deps.log.error("alert_delivery_failed", { deliveryId: id, error: String(error) });
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, due.length) }, worker));
  return tried;
}

/**
 * Sends due deliveries every `intervalSeconds` (0: never), the first time shortly after start
 * (what a restart left queued goes out). Runs never overlap; `kick()` runs one soon.
 */
export function startAlertDelivery(deps: DeliveryDeps, intervalSeconds: number): { stop(): Promise<void>; kick(): void } {
  if (intervalSeconds <= 0) return { stop: async () => {}, kick: () => {} };
  const job = periodic({
    everyMs: intervalSeconds * 1000,
    firstAfterMs: 1_000,
    // a run asked for while one runs (a kick, the timer) follows it: what was queued meanwhile goes out
    repeatIfAsked: true,
    run: async (self) => {
      // a full batch means more are waiting
      while ((await deliverDue(deps)) >= BATCH && !self.stopped);
    },
    onError: (error) => deps.log.error("alert_delivery_failed", { error: String(error) }),
  });
  return {
    kick: () => setTimeout(job.runNow, 0),
    stop: job.stop,
  };
}
