/**
 * Outgoing mail against a real local SMTP server (tests/support/mail-capture.ts): invitations,
 * "Forgot password?" links, confirmation links for trial accounts, and what happens when the
 * relay is down or mail is not configured.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { createMailer } from "../../src/features/mail/mailer";
import { PASSWORD_LINK_SENT_MESSAGE } from "../../src/features/auth/contract";
import { cookieFrom, makeTestApp, type TestApp } from "../support/app";
import { markVerified, signedInMember } from "../support/fixtures";
import { linkIn, startMailCapture, type MailCapture } from "../support/mail-capture";
import { freePort } from "../support/server";

const PUBLIC = "http://dw.example.test";
let capture: MailCapture;
let t: TestApp;
let clock = new Date();

beforeAll(async () => {
  capture = await startMailCapture();
});
afterAll(() => capture.stop());
afterEach(() => t?.close());

async function appWithMail(relayPort = capture.port) {
  clock = new Date();
  const mailer = createMailer({ relay: { host: "127.0.0.1", port: relayPort, secure: false, auth: { user: "relay-user", pass: "relay-secret-pass" } }, from: "dmarcwarden <alerts@dw.example.test>", publicUrl: PUBLIC });
  t = await makeTestApp({ config: { publicUrl: PUBLIC }, deps: { mailer, now: () => clock } });
  return t;
}

const tokenOf = (link: string) => new URL(link).searchParams.get("token")!;
const unique = (name: string) => `${name}-${crypto.randomUUID().slice(0, 8)}@example.test`;

async function signUp(t: TestApp, email: string, password = "first password 123") {
  // with mail on, sign-up mails a verification link and the link signs in
  const res = await t.json("POST", "/api/auth/signup", { body: { name: "Mail Person", email, password, organization: "Mail Org" } });
  expect(res.status).toBe(202);
  const mail = await capture.waitFor((m) => m.to.includes(email) && m.subject === "Confirm your email address for dmarcwarden");
  const verified = await t.json("POST", "/api/auth/verify-email", { body: { token: tokenOf(linkIn(mail, `${PUBLIC}/verify-email`)) } });
  expect(verified.status).toBe(200);
  return cookieFrom(verified, "dw_session")!;
}

describe("invitation mail", () => {
  test("is sent with inviter, organization, role, expiry and a working link; the API does not return the link", async () => {
    const t = await appWithMail();
    const owner = await signUp(t, unique("owner"));
    const invited = unique("invited");
    const res = await t.json("POST", "/api/members/invitations", { cookie: owner, body: { email: invited, role: "admin" } });
    expect(res.status).toBe(201);
    expect(res.body.emailed).toBe(true);
    expect(res.body.link).toBeUndefined();
    expect(JSON.stringify(res.body)).not.toContain("token");

    const mail = await capture.waitFor((m) => m.to.includes(invited));
    expect(mail.subject).toBe("Mail Person invited you to Mail Org on dmarcwarden");
    expect(mail.text).toContain("as an admin");
    expect(mail.text).toContain("The link works once and until");
    expect(mail.from).toBe("alerts@dw.example.test");
    expect(mail.authUser).toBe("relay-user");
    expect(mail.html).toContain("Accept the invitation");
    expect(mail.html).not.toMatch(/<img|<script/i);
    const link = linkIn(mail, `${PUBLIC}/invite?token=`);
    expect(mail.html).toContain(link.replace(/&/g, "&amp;"));

    const guest = await signUp(t, invited, "second password 456");
    const accepted = await t.json("POST", "/api/invitations/accept", { cookie: guest, body: { token: tokenOf(link) } });
    expect(accepted.status).toBe(200);
    expect(accepted.body.currentOrg).toMatchObject({ name: "Mail Org", role: "admin" });
    expect(t.logs.join("\n")).not.toContain("relay-secret-pass");
    expect(t.logs.join("\n")).not.toContain(tokenOf(link));
  });

  test("relay down: the invitation is still created and the link comes back to copy, with a message", async () => {
    const t = await appWithMail(await freePort());
    const owner = await signedInMember(t.deps.store, "owner");
    await markVerified(t.deps.store, owner.userId);
    const invited = unique("nomail");
    const res = await t.json("POST", "/api/members/invitations", { cookie: owner.cookie, body: { email: invited, role: "member" } });
    expect(res.status).toBe(201);
    expect(res.body.emailed).toBe(false);
    expect(res.body.link).toStartWith(`${PUBLIC}/invite?token=`);
    expect(res.body.message).toContain("could not be sent");
    const members = await t.json("GET", "/api/members", { cookie: owner.cookie });
    expect(members.body.invitations.map((i: { email: string }) => i.email)).toEqual([invited]);
    const lookup = await t.json("POST", "/api/invitations/lookup", { body: { token: tokenOf(res.body.link) } });
    expect(lookup.body.email).toBe(invited);
  });

  test("without mail configured the link is returned to copy, as before", async () => {
    t = await makeTestApp();
    const owner = await signedInMember(t.deps.store, "owner");
    const res = await t.json("POST", "/api/members/invitations", { cookie: owner.cookie, body: { email: unique("copy"), role: "viewer" } });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ emailed: false });
    expect(res.body.link).toStartWith("http://localhost/invite?token=");
    expect(res.body.message).toBeUndefined();
  });
});

describe("forgot password", () => {
  test("a known address gets a link, an unknown one gets nothing, and both get the same answer", async () => {
    const t = await appWithMail();
    const known = unique("known");
    await signUp(t, known);
    await capture.waitFor((m) => m.to.includes(known));
    const before = capture.messages.length;
    const unknown = await t.json("POST", "/api/auth/password-link", { body: { email: unique("nobody") } });
    const found = await t.json("POST", "/api/auth/password-link", { body: { email: known.toUpperCase() } });
    expect(unknown.status).toBe(200);
    expect(found.status).toBe(200);
    expect(unknown.body).toEqual(found.body);
    expect(found.body).toEqual({ success: true, message: PASSWORD_LINK_SENT_MESSAGE });
    const mail = await capture.waitFor((m) => m.to.includes(known) && m.subject === "Set a new password for dmarcwarden");
    expect(mail.subject).toBe("Set a new password for dmarcwarden");
    // the known address's mail arrived, and it is the only one sent since
    expect(capture.messages.slice(before).map((m) => m.to)).toEqual([[known]]);
    expect(linkIn(mail, `${PUBLIC}/set-password?token=`)).toBeTruthy();
  });

  test("the link works once: it sets the password, ends other sessions and signs in; then it fails", async () => {
    const t = await appWithMail();
    const email = unique("reset");
    const oldSession = await signUp(t, email);
    await t.json("POST", "/api/auth/password-link", { body: { email } });
    const token = tokenOf(linkIn(await capture.waitFor((m) => m.to.includes(email) && m.subject === "Set a new password for dmarcwarden"), `${PUBLIC}/set-password?token=`));

    const lookup = await t.json("POST", "/api/auth/password-link/lookup", { body: { token } });
    expect(lookup.body).toEqual({ email });
    const weak = await t.json("POST", "/api/auth/reset-password", { body: { token, password: "short" } });
    expect(weak.status).toBe(400);
    expect(weak.body.error.fields.password).toBe("Password must be at least 10 characters");
    const sameAsEmail = await t.json("POST", "/api/auth/reset-password", { body: { token, password: email } });
    expect(sameAsEmail.status).toBe(400);

    const reset = await t.json("POST", "/api/auth/reset-password", { body: { token, password: "brand new password 789" } });
    expect(reset.status).toBe(200);
    expect(reset.body.user.email).toBe(email);
    const newSession = cookieFrom(reset, "dw_session")!;
    expect((await t.json("GET", "/api/auth/me", { cookie: newSession })).status).toBe(200);
    expect((await t.json("GET", "/api/auth/me", { cookie: oldSession })).status).toBe(401);
    expect((await t.json("POST", "/api/auth/login", { body: { email, password: "brand new password 789" } })).status).toBe(200);
    expect((await t.json("POST", "/api/auth/login", { body: { email, password: "first password 123" } })).status).toBe(401);

    const again = await t.json("POST", "/api/auth/reset-password", { body: { token, password: "another password 000" } });
    expect(again.status).toBe(404);
    expect(again.body.error.message).toContain("used already or has expired");
    expect((await t.json("POST", "/api/auth/password-link/lookup", { body: { token } })).status).toBe(404);
  });

  test("an expired link is refused", async () => {
    const t = await appWithMail();
    const email = unique("late");
    await signUp(t, email);
    await t.json("POST", "/api/auth/password-link", { body: { email } });
    const token = tokenOf(linkIn(await capture.waitFor((m) => m.to.includes(email) && m.subject === "Set a new password for dmarcwarden"), `${PUBLIC}/set-password?token=`));
    clock = new Date(clock.getTime() + 24 * 3600_000 + 1000);
    const res = await t.json("POST", "/api/auth/reset-password", { body: { token, password: "too late password 1" } });
    expect(res.status).toBe(404);
    expect(res.body.error.message).toContain("Ask for a new one");
  });

  test("a made-up token is refused", async () => {
    const t = await appWithMail();
    const res = await t.json("POST", "/api/auth/reset-password", { body: { token: "x".repeat(43), password: "made up password 1" } });
    expect(res.status).toBe(404);
  });

  test("limited per email address (and per client address) with 429", async () => {
    const t = await appWithMail();
    const email = unique("many");
    for (let i = 0; i < 3; i++) expect((await t.json("POST", "/api/auth/password-link", { body: { email } })).status).toBe(200);
    const fourth = await t.json("POST", "/api/auth/password-link", { body: { email } });
    expect(fourth.status).toBe(429);
    for (let i = 0; i < 6; i++) await t.json("POST", "/api/auth/password-link", { body: { email: unique("spray") } });
    expect((await t.json("POST", "/api/auth/password-link", { body: { email: unique("spray") } })).status).toBe(429);
  });

  test("without outgoing mail the server says so (503), for any address", async () => {
    t = await makeTestApp();
    const res = await t.json("POST", "/api/auth/password-link", { body: { email: unique("x") } });
    expect(res.status).toBe(503);
    expect(res.body.error.code).toBe("mail_not_configured");
  });
});

describe("trial accounts", () => {
  test("the new owner is not signed in but mailed a confirmation link, which signs them in to set their first password", async () => {
    const t = await appWithMail();
    const email = unique("trial");
    const res = await t.json("POST", "/api/create-trial-setup", { body: { company: "Trial Co", email, domains: 3, firstName: "Tess", lastName: "Trial", selectedPlan: "growth" } });
    expect(res.status).toBe(200);
    expect(cookieFrom(res, "dw_session")).toBeUndefined();
    const mail = await capture.waitFor((m) => m.to.includes(email));
    expect(mail.subject).toBe("Confirm your email address for dmarcwarden");
    expect(mail.text).toContain("Hello Tess Trial,");
    const verified = await t.json("POST", "/api/auth/verify-email", { body: { token: tokenOf(linkIn(mail, `${PUBLIC}/verify-email?token=`)) } });
    expect(verified.status).toBe(200);
    expect(verified.body.currentOrg).toMatchObject({ name: "Trial Co", role: "owner" });
    const set = await t.json("POST", "/api/auth/set-password", { cookie: cookieFrom(verified, "dw_session"), body: { password: "trial owner password" } });
    expect(set.status).toBe(200);
    const { users } = t.deps.store.t;
    expect((await t.deps.store.db.select().from(users).where(eq(users.email, email)))[0]?.passwordHash).toBeTruthy();
  });

  test("relay down: the trial is still created (sending the form again mails a new link)", async () => {
    const t = await appWithMail(await freePort());
    const email = unique("trialdown");
    const res = await t.json("POST", "/api/create-trial-setup", { body: { company: "Down Co", email, domains: 1, firstName: "D", lastName: "Own", selectedPlan: "essentials" } });
    expect(res.status).toBe(200);
    expect(res.body.verificationSent).toBe(true);
    const { users } = t.deps.store.t;
    expect(await t.deps.store.db.select().from(users).where(eq(users.email, email))).toHaveLength(1);
  });
});

