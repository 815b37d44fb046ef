/**
 * Account events, each raised once per cause through the alerts verb (so they reach the
 * channels' outbox and the bell): a member joined, a payment failed (Stripe's
 * invoice.payment_failed), the trial ends in 2 days (scheduled, two nodes at once), the report
 * mailbox failed to poll 3 times in a row (and again after a good poll ends the run).
 */
import { afterEach, describe, expect, test } from "bun:test";
import { and, eq } from "drizzle-orm";
import type Stripe from "stripe";
import { recordEvents } from "../../src/features/alerts/events";
import { handleStripeEvent } from "../../src/features/billing/webhook";
import { pollMailbox } from "../../src/features/mailin/service";
import { raiseTrialEndings } from "../../src/features/orgs/trial-notice";
import { ingestFile } from "../../src/features/reports/ingest";
import { mailboxScope } from "../../src/lib/alerts/account-events";
import { describeAlert } from "../../src/lib/alerts/describe";
import type { AlertEvent } from "../../src/lib/alerts/events";
import { makeTestApp, type TestApp } from "../support/app";
import { createOrg, createUser, signedInMember, signIn } from "../support/fixtures";

let t: TestApp;
afterEach(() => t?.close());

async function eventsOf(orgId: string, type: string) {
  const e = t.deps.store.t.orgEvents;
  const rows = await t.deps.store.db.select().from(e).where(and(eq(e.orgId, orgId), eq(e.type, type)));
  return rows.map((r) => ({ ...r, data: JSON.parse(r.data) as Record<string, unknown> }));
}

const words = (type: string, data: Record<string, unknown>) => describeAlert({ type, domain: null, data, dedupeKey: type } as AlertEvent, { organization: { name: "Acme" }, publicUrl: "https://dw.example" });

describe("account events", () => {
  test("a member joined: one event when the invitation is accepted", async () => {
    t = await makeTestApp();
    const owner = await signedInMember(t.deps.store, "owner");
    const invited = `joiner-${crypto.randomUUID().slice(0, 6)}@example.test`;
    const sent = await t.json("POST", "/api/members/invitations", { cookie: owner.cookie, body: { email: invited, role: "admin" } });
    expect(sent.status).toBe(201);
    const token = new URL(sent.body.link).searchParams.get("token")!;
    const userId = await createUser(t.deps.store, invited, "Kim Joiner");
    const cookie = await signIn(t.deps.store, userId, null);
    expect((await t.json("POST", "/api/invitations/accept", { cookie, body: { token } })).status).toBe(200);
    expect((await t.json("POST", "/api/invitations/accept", { cookie, body: { token } })).status).toBe(404);

    const events = await eventsOf(owner.orgId, "account.member_joined");
    expect(events).toHaveLength(1);
    expect(events[0]!.data).toEqual({ name: "Kim Joiner", email: invited, role: "admin" });
    expect(words("account.member_joined", events[0]!.data).title).toBe("Kim Joiner joined the organization");
  });

  test("a payment failed: one event per invoice, however often Stripe sends it", async () => {
    t = await makeTestApp();
    const orgId = await createOrg(t.deps.store, "Paying Org");
    const store = t.deps.store;
    await store.write(async (tx) => {
      await tx.update(store.t.organizations).set({ plan: "essentials", planStatus: "active" }).where(eq(store.t.organizations.id, orgId));
      await tx.insert(store.t.billingAccounts).values({ orgId, stripeCustomerId: `cus_${orgId.slice(0, 8)}` });
    });
    const ctx = { store, stripe: {} as Stripe, log: t.deps.log, prices: { essentials: "p1", growth: "p2", scale: "p3" }, now: new Date("2026-05-11T09:00:00Z") };
    const event = (id: string, invoice: string) =>
      ({ id, type: "invoice.payment_failed", created: 1_778_490_000, data: { object: { id: invoice, customer: `cus_${orgId.slice(0, 8)}`, amount_due: 4900, currency: "eur", hosted_invoice_url: null } } }) as unknown as Stripe.Event;
    expect(await handleStripeEvent(ctx, event("evt_1", "in_1"))).toBe("applied");
    expect(await handleStripeEvent(ctx, event("evt_1", "in_1"))).toBe("duplicate");
    expect(await handleStripeEvent(ctx, event("evt_2", "in_1"))).toBe("applied"); // Stripe retried the invoice: same cause
    const events = await eventsOf(orgId, "account.payment_failed");
    expect(events).toHaveLength(1);
    expect(events[0]!.data).toMatchObject({ invoice: "in_1", amountDue: 4900, currency: "eur" });
    expect(words("account.payment_failed", events[0]!.data).facts).toContainEqual({ label: "Amount due", value: "49.00 EUR" });
    expect(await handleStripeEvent(ctx, event("evt_3", "in_2"))).toBe("applied");
    expect(await eventsOf(orgId, "account.payment_failed")).toHaveLength(2);
  });

  test("the trial ends in 2 days: told once per end date, even by two nodes at once", async () => {
    const now = new Date("2026-05-11T09:00:00Z");
    t = await makeTestApp({ deps: { now: () => now } });
    const store = t.deps.store;
    const soon = await createOrg(store, "Trial Soon");
    const later = await createOrg(store, "Trial Later");
    const setTrial = (orgId: string, ends: string) => store.write((tx) => tx.update(store.t.organizations).set({ planStatus: "trialing", trialEndsAt: new Date(ends) }).where(eq(store.t.organizations.id, orgId)));
    await setTrial(soon, "2026-05-13T08:00:00Z");
    await setTrial(later, "2026-05-18T08:00:00Z");
    const [a, b] = await Promise.all([raiseTrialEndings(t.deps, now), raiseTrialEndings(t.deps, now)]);
    expect([...a, ...b].filter((id) => id === soon)).toHaveLength(1);
    expect([...a, ...b]).not.toContain(later);
    await raiseTrialEndings(t.deps, new Date("2026-05-12T09:00:00Z"));
    const events = await eventsOf(soon, "account.trial_ending");
    expect(events).toHaveLength(1);
    expect(words("account.trial_ending", events[0]!.data).summary).toContain("13 May 2026");
    expect(await eventsOf(later, "account.trial_ending")).toHaveLength(0);
    // the trial was extended: a new end date is a new cause
    await setTrial(soon, "2026-05-20T08:00:00Z");
    await raiseTrialEndings(t.deps, new Date("2026-05-18T09:00:00Z"));
    expect(await eventsOf(soon, "account.trial_ending")).toHaveLength(2);
  });

  test("the report mailbox failed 3 times in a row: one event; a good poll ends the run and a new run alerts again", async () => {
    t = await makeTestApp({ config: { allowPrivateMailboxHosts: true } });
    const store = t.deps.store;
    const orgId = await createOrg(store, "Mailbox Org");
    // a stored password that cannot be decrypted: every poll fails before connecting
    await store.write((tx) => tx.insert(store.t.reportMailboxes).values({ orgId, host: "127.0.0.1", port: 1, tls: false, username: "reports", passwordEncrypted: "v1.broken.broken.broken" }));
    const failures = async () => (await store.db.select({ n: store.t.reportMailboxes.consecutiveFailures }).from(store.t.reportMailboxes).where(eq(store.t.reportMailboxes.orgId, orgId)))[0]!.n;
    for (let i = 1; i <= 2; i++) expect((await pollMailbox(t.deps, orgId, ingestFile)).ok).toBe(false);
    expect(await failures()).toBe(2);
    expect(await eventsOf(orgId, "account.mailbox_failing")).toHaveLength(0);
    await pollMailbox(t.deps, orgId, ingestFile);
    await pollMailbox(t.deps, orgId, ingestFile);
    expect(await failures()).toBe(4);
    const events = await eventsOf(orgId, "account.mailbox_failing");
    expect(events).toHaveLength(1);
    expect(events[0]!.data).toMatchObject({ host: "127.0.0.1", username: "reports", failures: 3 });
    expect(words("account.mailbox_failing", events[0]!.data).title).toBe("The report mailbox failed to poll 3 times in a row");

    // what a good poll records (the condition clears; see pollOnce), then a new run of failures
    await recordEvents(t.deps, orgId, [], { scope: mailboxScope });
    await store.write((tx) => tx.update(store.t.reportMailboxes).set({ consecutiveFailures: 0 }).where(eq(store.t.reportMailboxes.orgId, orgId)));
    for (let i = 1; i <= 3; i++) await pollMailbox(t.deps, orgId, ingestFile);
    expect(await eventsOf(orgId, "account.mailbox_failing")).toHaveLength(2);
  });
});
