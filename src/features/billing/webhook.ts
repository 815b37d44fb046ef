/**
 * Stripe webhook events → the organisation's plan and billing state. Each event id is applied
 * once; events older than the last one applied to an organisation do not move its state back.
 */
import { eq } from "drizzle-orm";
import type Stripe from "stripe";
import { paymentFailedEvent } from "../../lib/alerts/account-events";
import { recordEvents } from "../alerts/events";
import type { StoreCore } from "../../db/store";
import type { Logger } from "../../log";
import { isPlanKey, PLAN_KEYS, type PlanKey } from "../../lib/plans";
import { organizationInfo } from "../orgs/audience";
import { setBillingState } from "../orgs/service";

export interface WebhookContext {
  store: StoreCore;
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
  const { stripeEvents } = ctx.store.t;
  if ((await ctx.store.db.select({ id: stripeEvents.id }).from(stripeEvents).where(eq(stripeEvents.id, event.id)).limit(1)).length) return "duplicate";
  let outcome: "applied" | "ignored" = "ignored";
  switch (event.type) {
    case "setup_intent.succeeded":
      outcome = await startSubscription(ctx, event.data.object);
      break;
    case "customer.subscription.created":
    case "customer.subscription.updated":
    case "customer.subscription.deleted":
      outcome = await applySubscription(ctx, event.data.object, event.created, event.type === "customer.subscription.deleted");
      break;
    case "invoice.payment_failed":
      outcome = await applyPaymentFailed(ctx, event.data.object, event.created);
      break;
  }
  // Recorded after the work: if it failed, Stripe's retry runs it again (subscription creation
  // carries an idempotency key, so a retry never makes a second subscription).
  await ctx.store.write((tx) => tx.insert(stripeEvents).values({ id: event.id, type: event.type, processedAt: ctx.now }).onConflictDoNothing());
  ctx.log.info("stripe_event", { id: event.id, type: event.type, outcome });
  return outcome;
}

async function accountByCustomer(ctx: WebhookContext, customer: string | { id: string } | null | undefined) {
  const id = typeof customer === "string" ? customer : customer?.id;
  if (!id) return null;
  const { billingAccounts } = ctx.store.t;
  const [account] = await ctx.store.db.select().from(billingAccounts).where(eq(billingAccounts.stripeCustomerId, id)).limit(1);
  return account ?? null;
}

function organizationById(ctx: WebhookContext, orgId: string) {
  return organizationInfo(ctx, orgId);
}

/** The card is saved: start the subscription on the chosen plan, its trial ending with ours. */
async function startSubscription(ctx: WebhookContext, intent: Stripe.SetupIntent): Promise<"applied" | "ignored"> {
  const account = await accountByCustomer(ctx, intent.customer);
  if (!account) {
    ctx.log.warn("stripe_event_unknown_customer", { setupIntent: intent.id });
    return "ignored";
  }
  const org = await organizationById(ctx, account.orgId);
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
  const { billingAccounts } = ctx.store.t;
  await ctx.store.write(async (tx) => {
    await tx.update(billingAccounts).set({ stripeSubscriptionId: subscription.id }).where(eq(billingAccounts.orgId, org.id));
    await setBillingState(ctx, org.id, { planStatus: planStatusOf(subscription.status), trialEndsAt: subscription.trial_end ? new Date(subscription.trial_end * 1000) : org.trialEndsAt });
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

// The staleness check and the update run in one transaction: two deliveries handled at once
// cannot both pass the check and apply out of order.
async function applySubscription(ctx: WebhookContext, subscription: Stripe.Subscription, created: number, deleted: boolean): Promise<"applied" | "ignored"> {
  const { billingAccounts } = ctx.store.t;
  const status: PlanStatus = deleted ? "canceled" : planStatusOf(subscription.status);
  const plan = planOfPrice(ctx.prices, subscription.items?.data?.[0]?.price?.id);
  return ctx.store.write(async (tx) => {
    const account = await accountByCustomer(ctx, subscription.customer);
    if (!account || isStale(account, created)) return "ignored";
    await setBillingState(ctx, account.orgId, {
      planStatus: status,
      ...(plan ? { plan } : {}),
      ...(subscription.trial_end ? { trialEndsAt: new Date(subscription.trial_end * 1000) } : {}),
    });
    await tx
      .update(billingAccounts)
      .set({ stripeSubscriptionId: subscription.id, stateEventAt: new Date(created * 1000) })
      .where(eq(billingAccounts.orgId, account.orgId));
    return "applied";
  });
}

async function applyPaymentFailed(ctx: WebhookContext, invoice: Stripe.Invoice, created: number): Promise<"applied" | "ignored"> {
  const { billingAccounts } = ctx.store.t;
  return ctx.store.write(async (tx) => {
    const account = await accountByCustomer(ctx, invoice.customer);
    if (!account || isStale(account, created)) return "ignored";
    const org = await organizationById(ctx, account.orgId);
    // A canceled subscription's last failed invoice does not bring it back to past_due.
    if (!org || org.planStatus === "canceled") return "ignored";
    await setBillingState(ctx, account.orgId, { planStatus: "past_due" });
    // an account event for the organisation's channels and bell, once per invoice, in the same transaction
    await recordEvents({ store: ctx.store, now: () => ctx.now }, account.orgId, [
      paymentFailedEvent({ id: invoice.id ?? `event-${created}`, amountDue: invoice.amount_due, currency: invoice.currency, hostedInvoiceUrl: invoice.hosted_invoice_url }),
    ]);
    await tx.update(billingAccounts).set({ stateEventAt: new Date(created * 1000) }).where(eq(billingAccounts.orgId, account.orgId));
    return "applied";
  });
}
