/**
 * An address nobody has proved hands out no access while mail is on, and what an account handed
 * out before its address was first proved (while mail was off) is dropped at the first proof,
 * with the owner told by mail and in the audit log. Real SMTP receiver, both stores.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { and, eq } from "drizzle-orm";
import { createMailer } from "../../src/features/mail/mailer";
import { cookieFrom, makeTestApp, type TestApp } from "../support/app";
import { signedInMember } from "../support/fixtures";
import { linkIn, startMailCapture, type MailCapture } from "../support/mail-capture";

const PUBLIC = "http://dw.example.test";
let capture: MailCapture;
let t: TestApp | undefined;

beforeAll(async () => {
  capture = await startMailCapture();
});
afterAll(() => capture.stop());
afterEach(async () => {
  await t?.close();
  t = undefined;
});

const mailerFor = () => createMailer({ relay: { host: "127.0.0.1", port: capture.port, secure: false, auth: null }, from: "dmarcwarden <alerts@dw.example.test>", publicUrl: PUBLIC });
const unique = (name: string) => `${name}-${crypto.randomUUID().slice(0, 8)}@example.test`;
const tokenOf = (link: string) => new URL(link).searchParams.get("token")!;
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const trial = (email: string) => ({ company: "Victim Co", email, domains: 2, firstName: "Vera", lastName: "Victim", selectedPlan: "growth" });

describe("an address nobody has proved, with mail on", () => {
  test("a trial with someone else's email signs nobody in, so no token or invitation can be made with it", async () => {
    t = await makeTestApp({ config: { publicUrl: PUBLIC }, deps: { mailer: mailerFor() } });
    const victim = unique("victim");
    const res = await t.json("POST", "/api/create-trial-setup", { body: trial(victim) });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ clientSecret: null, verificationSent: true });
    expect(res.body.message).toContain("Check your email");
    expect(cookieFrom(res, "dw_session")).toBeUndefined();
    const { sessions, users } = t.deps.store.t;
    const [user] = await t.deps.store.db.select().from(users).where(eq(users.email, victim));
    expect(user!.emailVerifiedAt).toBeNull();
    expect(await t.deps.store.db.select().from(sessions).where(eq(sessions.userId, user!.id))).toEqual([]);
    // signed out, nothing can be made
    expect((await t.json("POST", "/api/tokens", { body: { name: "take", role: "admin" } })).status).toBe(401);
    expect((await t.json("POST", "/api/members/invitations", { body: { email: unique("second"), role: "owner" } })).status).toBe(401);

    // the address's owner gets the link; opening it signs in to the trial made for them
    const mail = await capture.waitFor((m) => m.to.includes(victim) && m.subject === "Confirm your email address for dmarcwarden");
    expect(mail.text).toContain("Hello Vera Victim,");
    const verified = await t.json("POST", "/api/auth/verify-email", { body: { token: tokenOf(linkIn(mail, `${PUBLIC}/verify-email`)) } });
    expect(verified.status).toBe(200);
    expect(verified.body.currentOrg).toMatchObject({ name: "Victim Co", role: "owner" });
    const cookie = cookieFrom(verified, "dw_session")!;
    expect((await t.json("GET", "/api/billing/status", { cookie })).body).toMatchObject({ plan: "growth", hasPassword: false });
    expect((await t.json("POST", "/api/auth/set-password", { cookie, body: { password: "the real owner's password" } })).status).toBe(200);
    expect((await t.json("POST", "/api/tokens", { cookie, body: { name: "mine", role: "admin" } })).status).toBe(201);
  });

  test("an unproved account that has a session (made while mail was off) is refused API tokens and invitations, and nothing is written", async () => {
    t = await makeTestApp({ config: { publicUrl: PUBLIC }, deps: { mailer: mailerFor() } });
    const owner = await signedInMember(t.deps.store, "owner");
    const { apiTokens, invitations } = t.deps.store.t;
    const token = await t.json("POST", "/api/tokens", { cookie: owner.cookie, body: { name: "take", role: "admin" } });
    expect(token.status).toBe(403);
    expect(token.body.error.code).toBe("email_unverified");
    expect(token.body.error.message).toContain("Confirm your email address first");
    const invited = await t.json("POST", "/api/members/invitations", { cookie: owner.cookie, body: { email: unique("second"), role: "owner" } });
    expect(invited.status).toBe(403);
    expect(invited.body.error.code).toBe("email_unverified");
    expect(await t.deps.store.db.select().from(apiTokens).where(eq(apiTokens.orgId, owner.orgId))).toEqual([]);
    expect(await t.deps.store.db.select().from(invitations).where(eq(invitations.orgId, owner.orgId))).toEqual([]);
  });

  test("without mail nothing can be proved, so nothing is asked: the trial signs in and may make tokens, as sign-up does", async () => {
    t = await makeTestApp({ config: { publicUrl: PUBLIC } });
    const res = await t.json("POST", "/api/create-trial-setup", { body: trial(unique("selfhosted")) });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ clientSecret: null });
    const cookie = cookieFrom(res, "dw_session")!;
    expect((await t.json("POST", "/api/tokens", { cookie, body: { name: "ci", role: "admin" } })).status).toBe(201);
  });
});

describe("the first proof of an address", () => {
  test("drops the tokens, invitations, invited members and other sessions made before it, and tells the owner by mail and audit log", async () => {
    // mail off: a stranger starts a trial with the victim's address and is signed in
    t = await makeTestApp({ config: { publicUrl: PUBLIC } });
    const { store } = t.deps;
    const victim = unique("victim");
    const started = await t.json("POST", "/api/create-trial-setup", { body: trial(victim) });
    const stranger = cookieFrom(started, "dw_session")!;
    const minted = await t.json("POST", "/api/tokens", { cookie: stranger, body: { name: "backdoor", role: "admin" } });
    expect(minted.status).toBe(201);
    const second = unique("accomplice");
    const invite = await t.json("POST", "/api/members/invitations", { cookie: stranger, body: { email: second, role: "owner" } });
    expect(invite.status).toBe(201);
    const pending = unique("pending");
    expect((await t.json("POST", "/api/members/invitations", { cookie: stranger, body: { email: pending, role: "admin" } })).status).toBe(201);
    const signup = await t.json("POST", "/api/auth/signup", { body: { name: "Accomplice", email: second, password: "accomplice password 1", organization: "Elsewhere" } });
    const accomplice = cookieFrom(signup, "dw_session")!;
    expect((await t.json("POST", "/api/invitations/accept", { cookie: accomplice, body: { token: tokenOf(invite.body.link) } })).status).toBe(200);
    const me = await t.json("GET", "/api/auth/me", { cookie: stranger });
    const orgId = me.body.currentOrg.id as string;

    // the server's operator turns outgoing mail on; the address's owner asks for a password link
    t.deps.mailer = mailerFor();
    expect((await t.json("POST", "/api/tokens", { cookie: stranger, body: { name: "another", role: "admin" } })).body.error.code).toBe("email_unverified");
    expect((await t.json("POST", "/api/auth/password-link", { body: { email: victim } })).status).toBe(200);
    const link = await capture.waitFor((m) => m.to.includes(victim) && m.text.includes("/set-password?token="));
    const reset = await t.json("POST", "/api/auth/reset-password", { body: { token: tokenOf(linkIn(link, `${PUBLIC}/set-password`)), password: "the real owner's password" } });
    expect(reset.status).toBe(200);
    const owner = cookieFrom(reset, "dw_session")!;

    // the stranger's session, token and invited owner are gone; the pending invitation too
    expect((await t.json("GET", "/api/auth/me", { cookie: stranger })).status).toBe(401);
    expect((await t.json("GET", "/api/domains", { headers: bearer(minted.body.token) })).status).toBe(401);
    const members = await t.json("GET", "/api/members", { cookie: owner });
    expect(members.body.members.map((m: { email: string }) => m.email)).toEqual([victim]);
    expect(members.body.invitations).toEqual([]);
    expect((await t.json("GET", "/api/tokens", { cookie: owner })).body).toEqual([]);
    expect((await t.json("GET", "/api/auth/me", { cookie: accomplice })).body.organizations.map((o: { name: string }) => o.name)).toEqual(["Elsewhere"]);

    // the owner is told, by mail and in the audit log
    const notice = await capture.waitFor((m) => m.to.includes(victim) && m.subject === "We removed access made before you confirmed your dmarcwarden address");
    expect(notice.text).toContain("backdoor");
    expect(notice.text).toContain(second);
    expect(notice.text).toContain(pending);
    expect(notice.text).toContain("1 other session was signed out.");
    const { auditLog } = store.t;
    const [entry] = await store.db.select().from(auditLog).where(and(eq(auditLog.orgId, orgId), eq(auditLog.action, "auth.unproved_access_removed")));
    expect(JSON.parse(entry!.data!)).toEqual({ tokenName: ["backdoor"], invitations: [`${pending} (admin)`], members: [`${second} (owner)`], sessionCount: 1 });
    expect(entry!.target).toBe(victim);

    // a second proof drops nothing more: what the proved owner makes stays
    expect((await t.json("POST", "/api/tokens", { cookie: owner, body: { name: "mine", role: "admin" } })).status).toBe(201);
    expect((await t.json("POST", "/api/auth/password-link", { body: { email: victim } })).status).toBe(200);
    const again = await capture.waitFor((m) => m.to.includes(victim) && m.text.includes("/set-password?token=") && m !== link);
    expect((await t.json("POST", "/api/auth/reset-password", { body: { token: tokenOf(linkIn(again, `${PUBLIC}/set-password`)), password: "another owner password" } })).status).toBe(200);
    const owner2 = cookieFrom(await t.json("POST", "/api/auth/login", { body: { email: victim, password: "another owner password" } }), "dw_session")!;
    expect((await t.json("GET", "/api/tokens", { cookie: owner2 })).body.map((k: { name: string }) => k.name)).toEqual(["mine"]);
  });
});
