import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { billingAccounts, organizations, stripeEvents } from "../../src/db/schema";
import { cookieFrom, type TestApp } from "../support/app";
import { signedEvent, startStripeServer, TEST_PRICES, type StripeStandIn } from "../support/stripe-server";
import { billingApp, trialBody } from "./billing-helpers";

let stripe: StripeStandIn;
beforeAll(() => {
  stripe = startStripeServer();
});
afterAll(() => stripe.close());

/** A trial made through the API, as a visitor would: its org, customer, SetupIntent and owner cookie. */
async function startTrial(t: TestApp, plan = "growth") {
  const res = await t.request("POST", "/api/create-trial-setup", { body: trialBody({ selectedPlan: plan }) });
  const { clientSecret } = (await res.json()) as { clientSecret: string };
  const account = (await t.deps.store.db.select().from(billingAccounts).where(eq(billingAccounts.setupIntentId, clientSecret.split("_secret_")[0]!)))[0]!;
  return { orgId: account.orgId, customerId: account.stripeCustomerId, setupIntentId: account.setupIntentId!, cookie: cookieFrom(res, "dw_session")! };
}

async function deliver(t: TestApp, event: Parameters<typeof signedEvent>[1], options: Parameters<typeof signedEvent>[2] = {}) {
  const { payload, signature, id } = await signedEvent(stripe.client(), event, options);
  const res = await t.json("POST", "/api/stripe/webhook", { body: payload, headers: { "stripe-signature": signature, "content-type": "application/json" } });
  return { ...res, id };
}

const orgOf = async (t: TestApp, orgId: string) => (await t.deps.store.db.select().from(organizations).where(eq(organizations.id, orgId)))[0]!;

const subscription = (customer: string, status: string, overrides: Record<string, unknown> = {}) => ({
  id: "sub_from_event",
  object: "subscription",
  customer,
  status,
  trial_end: null,
  items: { object: "list", data: [{ id: "si_1", object: "subscription_item", price: { id: TEST_PRICES.growth, object: "price" } }] },
  metadata: {},
  ...overrides,
});

describe("POST /api/stripe/webhook: signature checks", () => {
  test("refuses an unsigned event, a wrong signature and a stale timestamp with 400, changing nothing", async () => {
    const t = await billingApp(stripe.url);
    const trial = await startTrial(t);
    const object = { id: trial.setupIntentId, object: "setup_intent", customer: trial.customerId, payment_method: "pm_card", status: "succeeded", metadata: {} };
    const { payload } = await signedEvent(stripe.client(), { type: "setup_intent.succeeded", object });

    const unsigned = await t.json("POST", "/api/stripe/webhook", { body: payload, headers: { "content-type": "application/json" } });
    expect(unsigned.status).toBe(400);

    const wrongSecret = await deliver(t, { type: "setup_intent.succeeded", object }, { secret: "whsec_someone_else" });
    expect(wrongSecret.status).toBe(400);
    expect(wrongSecret.body.error.code).toBe("bad_signature");

    const { signature } = await signedEvent(stripe.client(), { type: "setup_intent.succeeded", object });
    const tampered = await t.json("POST", "/api/stripe/webhook", { body: payload.replace("pm_card", "pm_evil"), headers: { "stripe-signature": signature } });
    expect(tampered.status).toBe(400);

    const stale = await deliver(t, { type: "setup_intent.succeeded", object }, { timestamp: Math.floor(Date.now() / 1000) - 3600 });
    expect(stale.status).toBe(400);

    expect(stripe.calls("/v1/subscriptions").filter((r) => r.params.customer === trial.customerId)).toHaveLength(0);
    expect((await t.deps.store.db.select().from(stripeEvents))).toHaveLength(0);
    t.close();
  });
});

describe("POST /api/stripe/webhook: the organization's billing life", () => {
  test("setup_intent.succeeded starts the subscription on the plan's price with the trial ending with ours; a replay is applied once", async () => {
    const t = await billingApp(stripe.url);
    const trial = await startTrial(t, "essentials");
    const event = { id: `evt_setup_${trial.orgId}`, type: "setup_intent.succeeded", object: { id: trial.setupIntentId, object: "setup_intent", customer: trial.customerId, payment_method: "pm_card_visa", status: "succeeded", metadata: {} } };
    const first = await deliver(t, event);
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ received: true, outcome: "applied" });

    const created = stripe.calls("/v1/subscriptions", "POST").filter((r) => r.params.customer === trial.customerId);
    expect(created).toHaveLength(1);
    const sent = created[0]!.params;
    expect(sent["items[0][price]"]).toBe(TEST_PRICES.essentials);
    expect(sent.default_payment_method).toBe("pm_card_visa");
    const trialEndsAt = (await orgOf(t, trial.orgId)).trialEndsAt!;
    expect(Number(sent.trial_end)).toBe(Math.floor(trialEndsAt.getTime() / 1000));
    expect(sent["metadata[org_id]"]).toBe(trial.orgId);
    expect(created[0]!.idempotencyKey).toContain(trial.setupIntentId);

    const account = (await t.deps.store.db.select().from(billingAccounts).where(eq(billingAccounts.orgId, trial.orgId)))[0]!;
    expect(account.stripeSubscriptionId).toMatch(/^sub_/);
    expect((await orgOf(t, trial.orgId)).planStatus).toBe("trialing");

    const replay = await deliver(t, event);
    expect(replay.status).toBe(200);
    expect(replay.body.outcome).toBe("duplicate");
    expect(stripe.calls("/v1/subscriptions", "POST").filter((r) => r.params.customer === trial.customerId)).toHaveLength(1);
    t.close();
  });

  test("subscription and invoice events move the organization trialing → active → past_due → active → canceled, and canceled is read-only", async () => {
    const t = await billingApp(stripe.url);
    const trial = await startTrial(t);
    const at = Math.floor(Date.now() / 1000);
    expect((await orgOf(t, trial.orgId)).planStatus).toBe("trialing");

    expect((await deliver(t, { type: "customer.subscription.updated", object: subscription(trial.customerId, "active"), created: at + 1 })).body.outcome).toBe("applied");
    expect((await orgOf(t, trial.orgId)).planStatus).toBe("active");

    await deliver(t, { type: "invoice.payment_failed", object: { id: "in_1", object: "invoice", customer: trial.customerId }, created: at + 2 });
    expect((await orgOf(t, trial.orgId)).planStatus).toBe("past_due");
    const pastDue = await t.json("GET", "/api/billing/status", { cookie: trial.cookie });
    expect(pastDue.body).toMatchObject({ status: "past_due", readOnly: false });

    await deliver(t, { type: "customer.subscription.updated", object: subscription(trial.customerId, "active"), created: at + 3 });
    expect((await orgOf(t, trial.orgId)).planStatus).toBe("active");

    // an older event delivered late does not move the state back
    expect((await deliver(t, { type: "invoice.payment_failed", object: { id: "in_0", object: "invoice", customer: trial.customerId }, created: at })).body.outcome).toBe("ignored");
    expect((await orgOf(t, trial.orgId)).planStatus).toBe("active");

    await deliver(t, { type: "customer.subscription.deleted", object: subscription(trial.customerId, "canceled"), created: at + 4 });
    expect((await orgOf(t, trial.orgId)).planStatus).toBe("canceled");
    const canceled = await t.json("GET", "/api/billing/status", { cookie: trial.cookie });
    expect(canceled.status).toBe(200);
    expect(canceled.body.readOnly).toBe(true);
    expect(canceled.body.readOnlyMessage).toContain("canceled");
    // data is kept: the organisation still exists
    expect((await orgOf(t, trial.orgId)).name).toBe("Acme Dental");
    t.close();
  });

  test("a subscription moved to another plan's price changes the organization's plan", async () => {
    const t = await billingApp(stripe.url);
    const trial = await startTrial(t, "growth");
    const object = subscription(trial.customerId, "active", { items: { object: "list", data: [{ id: "si_1", object: "subscription_item", price: { id: TEST_PRICES.scale, object: "price" } }] } });
    await deliver(t, { type: "customer.subscription.updated", object });
    expect(await orgOf(t, trial.orgId)).toMatchObject({ plan: "scale", planStatus: "active" });
    t.close();
  });

  test("events for unknown customers and unhandled types are acknowledged and change nothing", async () => {
    const t = await billingApp(stripe.url);
    expect((await deliver(t, { type: "customer.subscription.updated", object: subscription("cus_unknown", "active") })).body.outcome).toBe("ignored");
    expect((await deliver(t, { type: "charge.succeeded", object: { id: "ch_1", object: "charge" } })).body.outcome).toBe("ignored");
    t.close();
  });
});
