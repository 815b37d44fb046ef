import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { billingAccounts, memberships, organizations, users } from "../../src/db/schema";
import { createMailer } from "../../src/features/mail/mailer";
import { createStripeClient } from "../../src/features/billing/settings";
import { cookieFrom, makeTestApp } from "../support/app";
import { markVerified } from "../support/fixtures";
import { linkIn, startMailCapture, type CapturedMail, type MailCapture } from "../support/mail-capture";
import { startStripeServer, TEST_PUBLISHABLE_KEY, type StripeStandIn } from "../support/stripe-server";
import { billingApp, billingConfig, trialBody } from "./billing-helpers";

let stripe: StripeStandIn;
beforeAll(() => {
  stripe = startStripeServer();
});
afterAll(() => stripe.close());

describe("POST /api/create-trial-setup with billing on", () => {
  test("creates the account, signs in, and returns the SetupIntent's client secret", async () => {
    const t = await billingApp(stripe.url);
    const before = stripe.requests.length;
    const body = trialBody({ email: "Owner@Acme.TEST", selectedPlan: "essentials", domains: 7 });
    const res = await t.json("POST", "/api/create-trial-setup", { body });
    expect(res.status).toBe(200);
    expect(res.body.clientSecret).toMatch(/^seti_.+_secret_/);

    // what the product sent to Stripe: a customer, then an off-session SetupIntent for it
    const sent = stripe.requests.slice(before);
    expect(sent.map((r) => `${r.method} ${r.path}`)).toEqual(["POST /v1/customers", "POST /v1/setup_intents"]);
    const [customerReq, intentReq] = sent;
    expect(customerReq!.params.email).toBe("owner@acme.test");
    expect(customerReq!.params.name).toBe("Acme Dental");
    expect(customerReq!.params["metadata[expected_domains]"]).toBe("7");
    expect(customerReq!.authorization).toBe("Bearer sk_test_dmarcwarden");
    const customerId = [...stripe.objects.values()].find((o) => o.object === "customer" && o.email === "owner@acme.test")!.id as string;
    expect(intentReq!.params.customer).toBe(customerId);
    expect(intentReq!.params.usage).toBe("off_session");
    expect(intentReq!.params["metadata[plan]"]).toBe("essentials");
    expect(intentReq!.idempotencyKey).toBeTruthy();

    // the account: a user without a password, an organisation on the chosen plan in trial, owner membership
    const db = t.deps.store.db;
    const user = (await db.select().from(users).where(eq(users.email, "owner@acme.test")))[0]!;
    expect(user.name).toBe("Ada Lovelace");
    expect(user.passwordHash).toBeNull();
    const membership = (await db.select().from(memberships).where(eq(memberships.userId, user.id)))[0]!;
    expect(membership.role).toBe("owner");
    const org = (await db.select().from(organizations).where(eq(organizations.id, membership.orgId)))[0]!;
    expect(org).toMatchObject({ name: "Acme Dental", plan: "essentials", planStatus: "trialing" });
    const days = (org.trialEndsAt!.getTime() - Date.now()) / 86400_000;
    expect(days).toBeGreaterThan(6.99);
    expect(days).toBeLessThanOrEqual(7.001);
    const account = (await db.select().from(billingAccounts).where(eq(billingAccounts.orgId, org.id)))[0]!;
    expect(account.stripeCustomerId).toBe(customerId);
    expect(account.setupIntentId).toBe(res.body.clientSecret.split("_secret_")[0]);

    // signed in: the cookie is the session, scoped to the new organisation
    const setCookie = res.headers.get("set-cookie")!;
    expect(setCookie).toContain("HttpOnly");
    expect(setCookie).toContain("SameSite=Lax");
    expect(setCookie).toContain("Path=/");
    expect(setCookie).toContain(`Max-Age=${30 * 86400}`);
    const cookie = cookieFrom(res, "dw_session")!;
    const status = await t.json("GET", "/api/billing/status", { cookie });
    expect(status.status).toBe(200);
    expect(status.body).toMatchObject({ plan: "essentials", planName: "Essentials", status: "trialing", readOnly: false, hasPassword: false, limits: { domains: 10, members: 5 } });
    t.close();
  });

  test("a second company with the same name gets its own unique slug", async () => {
    const t = await billingApp(stripe.url);
    await t.json("POST", "/api/create-trial-setup", { body: trialBody({ company: "Same Name" }) });
    await t.json("POST", "/api/create-trial-setup", { body: trialBody({ company: "Same Name" }) });
    const slugs = (await t.deps.store.db.select({ slug: organizations.slug }).from(organizations).where(eq(organizations.name, "Same Name"))).map((r) => r.slug);
    expect(new Set(slugs).size).toBe(2);
    t.close();
  });

  test("an email already registered gets 409 offering sign-in, and nothing is sent to Stripe", async () => {
    const t = await billingApp(stripe.url);
    const body = trialBody();
    expect((await t.json("POST", "/api/create-trial-setup", { body })).status).toBe(200);
    const before = stripe.requests.length;
    const again = await t.json("POST", "/api/create-trial-setup", { body: { ...body, email: body.email.toUpperCase(), company: "Other" } });
    expect(again.status).toBe(409);
    expect(again.body.error.message).toContain("Sign in");
    expect(again.body.error.fields.email).toContain("already exists");
    expect(again.headers.get("set-cookie")).toBeNull();
    expect(stripe.requests.length).toBe(before);
    t.close();
  });

  test("Back from payment and details sent again: the same signed-in visitor gets the same SetupIntent on the new plan", async () => {
    const t = await billingApp(stripe.url);
    const body = trialBody({ selectedPlan: "growth" });
    const first = await t.request("POST", "/api/create-trial-setup", { body });
    const { clientSecret } = (await first.json()) as { clientSecret: string };
    const cookie = cookieFrom(first, "dw_session")!;
    const again = await t.json("POST", "/api/create-trial-setup", { cookie, body: { ...body, selectedPlan: "scale", company: "Acme Dental Group" } });
    expect(again.status).toBe(200);
    expect(again.body.clientSecret).toBe(clientSecret);
    expect((await t.deps.store.db.select().from(organizations)).map((o) => [o.name, o.plan])).toEqual([["Acme Dental Group", "scale"]]);
    expect((await t.deps.store.db.select().from(users))).toHaveLength(1);
    // someone else (no session) with that email is still refused
    expect((await t.json("POST", "/api/create-trial-setup", { body })).status).toBe(409);
    t.close();
  });

  test("when Stripe fails nothing is left half-made: no account, no session, the customer is deleted again", async () => {
    const t = await billingApp(stripe.url);
    stripe.failNext("/v1/setup_intents", 400, "Invalid request");
    const before = stripe.requests.length;
    const body = trialBody();
    const res = await t.json("POST", "/api/create-trial-setup", { body });
    expect(res.status).toBe(502);
    expect(res.body.error.message).toContain("payment provider");
    expect(res.headers.get("set-cookie")).toBeNull();
    const db = t.deps.store.db;
    expect((await db.select().from(users).where(eq(users.email, body.email)))[0]).toBeUndefined();
    expect((await db.select().from(organizations))).toHaveLength(0);
    const sent = stripe.requests.slice(before).map((r) => `${r.method} ${r.path.replace(/cus_\w+/, "cus_x")}`);
    expect(sent).toEqual(["POST /v1/customers", "POST /v1/setup_intents", "DELETE /v1/customers/cus_x"]);
    // and the visitor can simply try again
    expect((await t.json("POST", "/api/create-trial-setup", { body })).status).toBe(200);
    t.close();
  });

  test("GET /api/billing/config serves the publishable key at run time", async () => {
    const t = await billingApp(stripe.url);
    const res = await t.json("GET", "/api/billing/config");
    expect(res.body).toEqual({ enabled: true, publishableKey: TEST_PUBLISHABLE_KEY });
    t.close();
  });
});

describe("POST /api/create-trial-setup validation", () => {
  const cases: [string, Record<string, unknown>, string, string][] = [
    ["company missing", { company: "" }, "company", "Company name is required"],
    ["email not an email", { email: "not-an-email" }, "email", "Please enter a valid email address"],
    ["email missing", { email: "" }, "email", "Email is required"],
    ["domains zero", { domains: 0 }, "domains", "Number of domains must be a whole number from 1 to 100"],
    ["domains over 100", { domains: 101 }, "domains", "Number of domains must be a whole number from 1 to 100"],
    ["domains not whole", { domains: 2.5 }, "domains", "Number of domains must be a whole number from 1 to 100"],
    ["domains as text", { domains: "3" }, "domains", "Number of domains must be a whole number from 1 to 100"],
    ["first name missing", { firstName: " " }, "firstName", "First name is required"],
    ["last name missing", { lastName: undefined }, "lastName", "Last name is required"],
    ["unknown plan", { selectedPlan: "platinum" }, "selectedPlan", "Choose a plan: essentials, growth or scale"],
  ];
  test.each(cases)("%s → 400 with the field's message", async (_name, overrides, field, message) => {
    const t = await billingApp(null);
    const res = await t.json("POST", "/api/create-trial-setup", { body: trialBody(overrides) });
    expect(res.status).toBe(400);
    expect(res.body.error.fields[field]).toBe(message);
    expect((await t.deps.store.db.select().from(users))).toHaveLength(0);
    t.close();
  });
});

describe("billing off (self-hosted mode)", () => {
  test("the details call creates the account on the chosen plan, signs in, and answers clientSecret null", async () => {
    const t = await billingApp(null);
    const body = trialBody({ selectedPlan: "scale" });
    const res = await t.json("POST", "/api/create-trial-setup", { body });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ clientSecret: null });
    const org = (await t.deps.store.db.select().from(organizations))[0]!;
    expect(org).toMatchObject({ plan: "scale", planStatus: "none", trialEndsAt: null });
    expect((await t.deps.store.db.select().from(billingAccounts))).toHaveLength(0);
    const cookie = cookieFrom(res, "dw_session")!;
    const status = await t.json("GET", "/api/billing/status", { cookie });
    expect(status.body).toMatchObject({ plan: "scale", status: "none", readOnly: false, limits: { domains: null, members: null, enforced: true } });
    expect((await t.json("GET", "/api/billing/config")).body).toEqual({ enabled: false, publishableKey: null });
    t.close();
  });

  test("the webhook endpoint does not exist without billing", async () => {
    const t = await billingApp(null);
    const res = await t.json("POST", "/api/stripe/webhook", { body: "{}", headers: { "stripe-signature": "t=1,v1=abc" } });
    expect(res.status).toBe(404);
    t.close();
  });
});

describe("POST /api/auth/set-password (the trial account's first password)", () => {
  test("sets it once; the owner can then sign in from /login", async () => {
    const t = await billingApp(null);
    const body = trialBody();
    const cookie = cookieFrom(await t.request("POST", "/api/create-trial-setup", { body }), "dw_session")!;
    const weak = await t.json("POST", "/api/auth/set-password", { cookie, body: { password: "short" } });
    expect(weak.status).toBe(400);
    expect(weak.body.error.fields.password).toBe("Password must be at least 10 characters");
    const ok = await t.json("POST", "/api/auth/set-password", { cookie, body: { password: "correct horse battery" } });
    expect(ok.status).toBe(200);
    expect((await t.json("GET", "/api/billing/status", { cookie })).body.hasPassword).toBe(true);
    const again = await t.json("POST", "/api/auth/set-password", { cookie, body: { password: "another long password" } });
    expect(again.status).toBe(409);
    const login = await t.json("POST", "/api/auth/login", { body: { email: body.email, password: "correct horse battery" } });
    expect(login.status).toBe(200);
    t.close();
  });

  test("needs a signed-in user", async () => {
    const t = await billingApp(null);
    expect((await t.json("POST", "/api/auth/set-password", { body: { password: "correct horse battery" } })).status).toBe(401);
    t.close();
  });
});

describe("POST /api/create-trial-setup with a mail relay: a taken email is not told apart", () => {
  const PUBLIC = "http://dw.example.test";
  let capture: MailCapture;
  beforeAll(async () => {
    capture = await startMailCapture();
  });
  afterAll(() => capture.stop());

  async function mailingApp(billing: boolean) {
    const config = billingConfig(billing ? stripe.url : null, { publicUrl: PUBLIC });
    const mailer = createMailer({ relay: { host: "127.0.0.1", port: capture.port, secure: false, auth: null }, from: "dmarcwarden <alerts@dw.example.test>", publicUrl: PUBLIC });
    return makeTestApp({ config, deps: { stripe: createStripeClient(config), mailer } });
  }

  test.each([
    ["billing on", true],
    ["billing off", false],
  ])("%s: the same answer as for a new email, nothing made, and the owner is mailed instead", async (_, billing) => {
    const t = await mailingApp(billing);
    const owner = trialBody();
    const first = await t.json("POST", "/api/create-trial-setup", { body: owner });
    expect(first.status).toBe(200);
    // the owner confirmed the address: it is theirs
    const [made] = await t.deps.store.db.select().from(users).where(eq(users.email, owner.email.toLowerCase()));
    await markVerified(t.deps.store, made!.id);
    const fresh = await t.json("POST", "/api/create-trial-setup", { body: trialBody() });
    const before = stripe.requests.length;

    const stranger = await t.json("POST", "/api/create-trial-setup", { body: trialBody({ email: owner.email.toUpperCase(), company: "Someone Else" }) });
    expect(stranger.status).toBe(fresh.status);
    expect(Object.keys(stranger.body)).toEqual(Object.keys(fresh.body));
    if (billing) expect(stranger.body.clientSecret).toMatch(/^seti_.+_secret_/);
    else expect(stranger.body.clientSecret).toBeNull();
    // nobody is signed in, for a new email as for a taken one, and nothing was made for the stranger
    expect(cookieFrom(fresh, "dw_session")).toBeUndefined();
    expect(cookieFrom(stranger, "dw_session")).toBeUndefined();
    expect(stranger.body).toEqual({ ...fresh.body, clientSecret: stranger.body.clientSecret });
    const db = t.deps.store.db;
    expect(await db.select().from(users).where(eq(users.email, owner.email.toLowerCase()))).toHaveLength(1);
    expect((await db.select().from(organizations)).map((o) => o.name).sort()).toEqual(["Acme Dental", "Acme Dental"]);
    // billing on: one decoy SetupIntent for no customer; no customer made
    const sent = stripe.requests.slice(before);
    expect(sent.map((r) => `${r.method} ${r.path}`)).toEqual(billing ? ["POST /v1/setup_intents"] : []);
    if (billing) expect(sent[0]!.params.customer).toBeUndefined();

    const mail = await capture.waitFor((m) => m.to.includes(owner.email.toLowerCase()) && m.subject === "You already have a dmarcwarden account");
    expect(mail.text).toContain("start a trial");
    t.close();
  });

  test("a new email starts its trial signed out: the payment step, and a confirmation link instead of a session", async () => {
    const t = await mailingApp(true);
    const body = trialBody();
    const res = await t.json("POST", "/api/create-trial-setup", { body });
    expect(res.status).toBe(200);
    expect(res.body.clientSecret).toMatch(/^seti_.+_secret_/);
    expect(res.body.verificationSent).toBe(true);
    expect(cookieFrom(res, "dw_session")).toBeUndefined();
    const mail = await capture.waitFor((m) => m.to.includes(body.email.toLowerCase()));
    const verified = await t.json("POST", "/api/auth/verify-email", { body: { token: new URL(linkIn(mail, `${PUBLIC}/verify-email`)).searchParams.get("token") } });
    expect((await t.json("GET", "/api/billing/status", { cookie: cookieFrom(verified, "dw_session") })).body).toMatchObject({ status: "trialing", hasPassword: false });
    t.close();
  });

  test("Back from payment and details sent again, not signed in: the same SetupIntent on the new plan, a new link, still no session", async () => {
    const t = await mailingApp(true);
    const body = trialBody({ selectedPlan: "growth" });
    const first = await t.json("POST", "/api/create-trial-setup", { body });
    const confirmation = (m: CapturedMail) => m.to.includes(body.email.toLowerCase()) && m.subject === "Confirm your email address for dmarcwarden";
    const firstLink = await capture.waitFor(confirmation);
    const again = await t.json("POST", "/api/create-trial-setup", { body: { ...body, selectedPlan: "scale", company: "Acme Dental Group" } });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    expect(cookieFrom(again, "dw_session")).toBeUndefined();
    expect((await t.deps.store.db.select().from(organizations)).map((o) => [o.name, o.plan])).toEqual([["Acme Dental Group", "scale"]]);
    const secondLink = await capture.waitFor((m) => confirmation(m) && m !== firstLink);
    expect(linkIn(secondLink, `${PUBLIC}/verify-email`)).not.toBe(linkIn(firstLink, `${PUBLIC}/verify-email`));
    t.close();
  });

});
