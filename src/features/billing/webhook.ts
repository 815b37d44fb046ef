/**
 * Stripe webhook events → the organisation's plan and billing state. Each event id is applied
 * once; events older than the last one applied to an organisation do not move its state back.
 */
import { eq } from "drizzle-orm";
import type Stripe from "stripe";
import type { DB } from "../../db";
import { writeTransactionDb } from "../../db/transaction";
import { billingAccounts, organizations, stripeEvents } from "../../db/schema";
import type { Logger } from "../../log";
import { isPlanKey, PLAN_KEYS, type PlanKey } from "../../lib/plans";

export interface WebhookContext {
  db: DB;
  stripe: Stripe;
  log: Logger;
  prices: Record<PlanKey, string>;
  now: Date;
}

export type PlanStatus = "trialing" | "active" | "past_due" | "canceled";

/** Stripe's subscription status → ours. */
export function planStatusOf(status: Stripe.Subscription.Status): PlanStatus {
  switch (status) {
    case "trialing":
      return "trialing";
    case "active":
      return "active";
    case "past_due":
    case "unpaid":
    case "incomplete":
      return "past_due";
    default:
      // canceled, incomplete_expired, paused (trial ended without a payment method)
      return "canceled";
  }
}

export async function handleStripeEvent(ctx: WebhookContext, event: Stripe.Event): Promise<"applied" | "duplicate" | "ignored"> {
  if (ctx.db.select({ id: stripeEvents.id }).from(stripeEvents).where(eq(stripeEvents.id, event.id)).get()) return "duplicate";
  let outcome: "applied" | "ignored" = "ignored";
  switch (event.type) {
    case "setup_intent.succeeded":
      outcome = await startSubscription(ctx, event.data.object);
      break;
    case "customer.subscription.created":
    case "customer.subscription.updated":
    case "customer.subscription.deleted":
      outcome = applySubscription(ctx, event.data.object, event.created, event.type === "customer.subscription.deleted");
      break;
    case "invoice.payment_failed":
      outcome = applyPaymentFailed(ctx, event.data.object, event.created);
      break;
  }
  // Recorded after the work: if it failed, Stripe's retry runs it again (subscription creation
  // carries an idempotency key, so a retry never makes a second subscription).
  ctx.db.insert(stripeEvents).values({ id: event.id, type: event.type, processedAt: ctx.now }).onConflictDoNothing().run();
  ctx.log.info("stripe_event", { id: event.id, type: event.type, outcome });
  return outcome;
}

function accountByCustomer(db: DB, customer: string | { id: string } | null | undefined) {
  const id = typeof customer === "string" ? customer : customer?.id;
  if (!id) return null;
  return db.select().from(billingAccounts).where(eq(billingAccounts.stripeCustomerId, id)).get() ?? null;
}

/** The card is saved: start the subscription on the chosen plan, its trial ending with ours. */
async function startSubscription(ctx: WebhookContext, intent: Stripe.SetupIntent): Promise<"applied" | "ignored"> {
  const account = accountByCustomer(ctx.db, intent.customer);
  if (!account) {
    ctx.log.warn("stripe_event_unknown_customer", { setupIntent: intent.id });
    return "ignored";
  }
  const org = ctx.db.select().from(organizations).where(eq(organizations.id, account.orgId)).get();
  if (!org) return "ignored";
  const paymentMethod = typeof intent.payment_method === "string" ? intent.payment_method : intent.payment_method?.id;
  if (account.stripeSubscriptionId) {
    // A card added again later (e.g. after a failed payment): make it the subscription's default.
    if (paymentMethod) await ctx.stripe.subscriptions.update(account.stripeSubscriptionId, { default_payment_method: paymentMethod });
    return "applied";
  }
  const plan: PlanKey = isPlanKey(org.plan) ? org.plan : "growth";
  const trialEnd = org.trialEndsAt && org.trialEndsAt.getTime() - ctx.now.getTime() > 60_000 ? Math.floor(org.trialEndsAt.getTime() / 1000) : undefined;
  const subscription = await ctx.stripe.subscriptions.create(
    {
      customer: account.stripeCustomerId,
      items: [{ price: ctx.prices[plan] }],
      ...(paymentMethod ? { default_payment_method: paymentMethod } : {}),
      ...(trialEnd ? { trial_end: trialEnd } : {}),
      metadata: { org_id: org.id, plan },
    },
    { idempotencyKey: `trial-subscription-${intent.id}` },
  );
  writeTransactionDb(ctx.db, (tx) => {
    tx.update(billingAccounts).set({ stripeSubscriptionId: subscription.id }).where(eq(billingAccounts.orgId, org.id)).run();
    tx.update(organizations)
      .set({ planStatus: planStatusOf(subscription.status), trialEndsAt: subscription.trial_end ? new Date(subscription.trial_end * 1000) : org.trialEndsAt })
      .where(eq(organizations.id, org.id))
      .run();
  });
  return "applied";
}

function planOfPrice(prices: Record<PlanKey, string>, priceId: string | undefined): PlanKey | null {
  if (!priceId) return null;
  return PLAN_KEYS.find((k) => prices[k] === priceId) ?? null;
}

/** Whether an event is older than the last one applied to this account (Stripe may deliver out of order). */
function isStale(account: { stateEventAt: Date | null }, created: number): boolean {
  return account.stateEventAt !== null && created * 1000 < account.stateEventAt.getTime();
}

function applySubscription(ctx: WebhookContext, subscription: Stripe.Subscription, created: number, deleted: boolean): "applied" | "ignored" {
  const account = accountByCustomer(ctx.db, subscription.customer);
  if (!account || isStale(account, created)) return "ignored";
  const status: PlanStatus = deleted ? "canceled" : planStatusOf(subscription.status);
  const plan = planOfPrice(ctx.prices, subscription.items?.data?.[0]?.price?.id);
  writeTransactionDb(ctx.db, (tx) => {
    tx.update(organizations)
      .set({
        planStatus: status,
        ...(plan ? { plan } : {}),
        ...(subscription.trial_end ? { trialEndsAt: new Date(subscription.trial_end * 1000) } : {}),
      })
      .where(eq(organizations.id, account.orgId))
      .run();
    tx.update(billingAccounts)
      .set({ stripeSubscriptionId: subscription.id, stateEventAt: new Date(created * 1000) })
      .where(eq(billingAccounts.orgId, account.orgId))
      .run();
  });
  return "applied";
}

function applyPaymentFailed(ctx: WebhookContext, invoice: Stripe.Invoice, created: number): "applied" | "ignored" {
  const account = accountByCustomer(ctx.db, invoice.customer);
  if (!account || isStale(account, created)) return "ignored";
  const org = ctx.db.select({ planStatus: organizations.planStatus }).from(organizations).where(eq(organizations.id, account.orgId)).get();
  // A canceled subscription's last failed invoice does not bring it back to past_due.
  if (!org || org.planStatus === "canceled") return "ignored";
  writeTransactionDb(ctx.db, (tx) => {
    tx.update(organizations).set({ planStatus: "past_due" }).where(eq(organizations.id, account.orgId)).run();
    tx.update(billingAccounts).set({ stateEventAt: new Date(created * 1000) }).where(eq(billingAccounts.orgId, account.orgId)).run();
  });
  return "applied";
}
