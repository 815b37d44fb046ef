/**
 * Two-factor sign-in end to end through the HTTP API: set-up, enable with a code, sign-in that
 * stops at { twoFactorRequired } until a code (or a recovery code) is given, replay and rate
 * limits, disable, the owner's "required for everyone" rule, and secrets kept out of the
 * database in clear, out of answers after creation and out of the logs.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { base32Decode, totp } from "../../src/lib/totp";
import { PENDING_LOGIN_MINUTES } from "../../src/features/auth/pending-login";
import { CODE_ATTEMPTS } from "../../src/features/auth/two-factor";
import { issuePasswordToken } from "../../src/features/auth/password-links";
import { hashToken, newToken } from "../../src/lib/tokens";
import { cookieFrom, makeTestApp, type TestApp } from "../support/app";
import { addMember, createUser, signIn } from "../support/fixtures";

let t: TestApp | null = null;
afterEach(() => t?.close());

const PASSWORD = "lantern-orchid-93-quarry";
let clock = new Date("2025-06-02T09:00:00Z");
const tick = (seconds = 30) => (clock = new Date(clock.getTime() + seconds * 1000));

/** A user signed up through the API (owner of a new organisation), with their session cookie. */
async function signedUp(email = "ann@example.test") {
  clock = new Date("2025-06-02T09:00:00Z");
  t = await makeTestApp({ deps: { now: () => clock } });
  const res = await t.request("POST", "/api/auth/signup", { body: { name: "Ann Owner", email, password: PASSWORD, organization: "Ann's Agency" } });
  expect(res.status).toBe(201);
  return { t, cookie: cookieFrom(res, "dw_session")!, email, orgId: ((await res.json()) as any).currentOrg.id as string };
}

const codeFor = (secret: string) => totp(base32Decode(secret)!, clock);

async function enrolled(email?: string) {
  const s = await signedUp(email);
  const setup = await s.t.json("POST", "/api/auth/2fa/setup", { cookie: s.cookie });
  expect(setup.status).toBe(200);
  const enable = await s.t.json("POST", "/api/auth/2fa/enable", { cookie: s.cookie, body: { code: await codeFor(setup.body.secret) } });
  expect(enable.status).toBe(200);
  tick();
  return { ...s, secret: setup.body.secret as string, recoveryCodes: enable.body.recoveryCodes as string[] };
}

async function passwordStep(app: TestApp, email: string) {
  const res = await app.request("POST", "/api/auth/login", { body: { email, password: PASSWORD } });
  return { status: res.status, body: await res.json(), session: cookieFrom(res, "dw_session"), pending: cookieFrom(res, "dw_2fa"), setCookie: res.headers.getSetCookie() };
}

describe("enrollment", () => {
  test("setup answers a secret and an otpauth URL; enable takes a code from it and answers ten recovery codes", async () => {
    const { t, cookie, email } = await signedUp();
    const setup = await t.json("POST", "/api/auth/2fa/setup", { cookie });
    expect(setup.status).toBe(200);
    expect(setup.body.secret).toMatch(/^[A-Z2-7]{32}$/);
    const url = new URL(setup.body.otpauthUrl);
    expect(url.protocol).toBe("otpauth:");
    expect(url.searchParams.get("secret")).toBe(setup.body.secret);
    expect(decodeURIComponent(url.pathname)).toContain(email);

    const wrong = await t.json("POST", "/api/auth/2fa/enable", { cookie, body: { code: "000000" } });
    expect(wrong.status).toBe(400);
    expect(wrong.body.error.message).toContain("That code is not right");
    const empty = await t.json("POST", "/api/auth/2fa/enable", { cookie, body: {} });
    expect(empty.status).toBe(400);
    expect(empty.body.error.fields.code).toContain("6-digit code");

    const enable = await t.json("POST", "/api/auth/2fa/enable", { cookie, body: { code: await codeFor(setup.body.secret) } });
    expect(enable.status).toBe(200);
    expect(enable.body.recoveryCodes).toHaveLength(10);
    expect(new Set(enable.body.recoveryCodes).size).toBe(10);
    for (const code of enable.body.recoveryCodes) expect(code).toMatch(/^[a-z2-9]{5}-[a-z2-9]{5}$/);

    const me = await t.json("GET", "/api/auth/me", { cookie });
    expect(me.body.twoFactor).toEqual({ enabled: true, required: false });
    // a second set-up while on is refused: the secret is never shown again
    const again = await t.json("POST", "/api/auth/2fa/setup", { cookie });
    expect(again.status).toBe(409);
    expect(JSON.stringify(again.body)).not.toContain(setup.body.secret);
  });

  test("enable without a set-up first, and set-up signed out, are refused with a clear answer", async () => {
    const { t, cookie } = await signedUp();
    const res = await t.json("POST", "/api/auth/2fa/enable", { cookie, body: { code: "123456" } });
    expect(res.status).toBe(409);
    expect(res.body.error.message).toContain("Start the set-up first");
    expect((await t.json("POST", "/api/auth/2fa/setup")).status).toBe(401);
  });

  test("the secret is stored sealed and the recovery codes only as hashes", async () => {
    const { t, email, secret, recoveryCodes } = await enrolled();
    const { users, recoveryCodes: codes } = t.deps.store.t;
    const [user] = await t.deps.store.db.select().from(users).where(eq(users.email, email));
    expect(user!.totpSecret).toBeTruthy();
    expect(user!.totpSecret).not.toContain(secret);
    expect(user!.totpPendingSecret).toBeNull();
    const stored = JSON.stringify(await t.deps.store.db.select().from(codes));
    for (const code of recoveryCodes) {
      expect(stored).not.toContain(code);
      expect(stored).not.toContain(code.replace("-", ""));
    }
  });
});

describe("sign-in with a second factor", () => {
  test("the password alone answers { twoFactorRequired } without a session; the code then signs in, once", async () => {
    const { t, email, secret } = await enrolled();
    const step = await passwordStep(t, email);
    expect(step.status).toBe(200);
    expect(step.body).toEqual({ twoFactorRequired: true });
    expect(step.session).toBeUndefined();
    expect(step.pending).toBeTruthy();
    const line = step.setCookie.find((c) => c.startsWith("dw_2fa="))!;
    expect(line).toContain("HttpOnly");
    expect(line).toContain(`Max-Age=${PENDING_LOGIN_MINUTES * 60}`);
    // the pending cookie is not a session
    expect((await t.json("GET", "/api/auth/me", { cookie: step.pending })).status).toBe(401);
    expect((await t.json("GET", "/api/domains", { cookie: step.pending })).status).toBe(401);

    const wrong = await t.json("POST", "/api/auth/login/2fa", { cookie: step.pending, body: { code: "000000" } });
    expect(wrong.status).toBe(401);
    expect(wrong.body.error.message).toContain("That code is not right");

    const code = await codeFor(secret);
    const res = await t.request("POST", "/api/auth/login/2fa", { cookie: step.pending, body: { code } });
    expect(res.status).toBe(200);
    const me = (await res.json()) as any;
    expect(me.user.email).toBe(email);
    const session = cookieFrom(res, "dw_session")!;
    expect(session).toBeTruthy();
    expect(res.headers.getSetCookie().some((c) => c.startsWith("dw_2fa=;") && c.includes("Max-Age=0"))).toBe(true);
    expect((await t.json("GET", "/api/domains", { cookie: session })).status).toBe(200);

    // the pending login is used up, and the same code does not work twice
    const reuse = await t.json("POST", "/api/auth/login/2fa", { cookie: step.pending, body: { code } });
    expect(reuse.status).toBe(401);
    expect(reuse.body.error.message).toContain("sign-in has expired");
    const next = await passwordStep(t, email);
    const replay = await t.json("POST", "/api/auth/login/2fa", { cookie: next.pending, body: { code } });
    expect(replay.status).toBe(401);
  });

  test("a recovery code signs in once; used again it is refused", async () => {
    const { t, email, recoveryCodes } = await enrolled();
    const first = await passwordStep(t, email);
    const ok = await t.json("POST", "/api/auth/login/2fa", { cookie: first.pending, body: { code: recoveryCodes[3]!.toUpperCase() } });
    expect(ok.status).toBe(200);
    const second = await passwordStep(t, email);
    const again = await t.json("POST", "/api/auth/login/2fa", { cookie: second.pending, body: { code: recoveryCodes[3] } });
    expect(again.status).toBe(401);
    const other = await t.json("POST", "/api/auth/login/2fa", { cookie: second.pending, body: { code: recoveryCodes[4] } });
    expect(other.status).toBe(200);
  });

  test(`the pending login ends after ${PENDING_LOGIN_MINUTES} minutes`, async () => {
    const { t, email, secret } = await enrolled();
    const step = await passwordStep(t, email);
    tick(PENDING_LOGIN_MINUTES * 60 + 1);
    const res = await t.json("POST", "/api/auth/login/2fa", { cookie: step.pending, body: { code: await codeFor(secret) } });
    expect(res.status).toBe(401);
    expect(res.body.error.message).toContain("Enter your email and password again");
  });

  test(`after ${CODE_ATTEMPTS} wrong codes the account's code attempts are refused with 429, even the right code`, async () => {
    const { t, email, secret } = await enrolled();
    let pending = (await passwordStep(t, email)).pending;
    for (let i = 0; i < CODE_ATTEMPTS; i++) {
      const res = await t.json("POST", "/api/auth/login/2fa", { cookie: pending, body: { code: String(100000 + i) } });
      expect(res.status).toBe(401);
    }
    // the fifth failure also ended that pending login; a new one is throttled by the account's count
    pending = (await passwordStep(t, email)).pending;
    const res = await t.json("POST", "/api/auth/login/2fa", { cookie: pending, body: { code: await codeFor(secret) } });
    expect(res.status).toBe(429);
    expect(res.headers.get("retry-after")).toBeTruthy();
    expect(res.body.error.message).toContain("Too many codes");
  });

  test("no pending cookie → 401, asking for the password again", async () => {
    const { t } = await signedUp();
    const res = await t.json("POST", "/api/auth/login/2fa", { body: { code: "123456" } });
    expect(res.status).toBe(401);
    expect(res.body.error.message).toContain("Enter your email and password again");
  });
});

describe("disable", () => {
  test("needs a right code; afterwards the password alone signs in", async () => {
    const { t, cookie, email, secret } = await enrolled();
    expect((await t.json("POST", "/api/auth/2fa/disable", { cookie, body: { code: "000000" } })).status).toBe(400);
    const off = await t.json("POST", "/api/auth/2fa/disable", { cookie, body: { code: await codeFor(secret) } });
    expect(off.status).toBe(200);
    const step = await passwordStep(t, email);
    expect(step.body.user.email).toBe(email);
    expect(step.session).toBeTruthy();
    expect((await t.json("GET", "/api/auth/me", { cookie })).body.twoFactor.enabled).toBe(false);
    expect((await t.json("POST", "/api/auth/2fa/disable", { cookie, body: { code: "123456" } })).status).toBe(409);
  });
});

describe("an organization that requires two-factor sign-in", () => {
  test("only an owner with two-factor on can require it; members without it are refused org routes until they enroll", async () => {
    const { t, cookie: ownerCookie, orgId, secret: ownerSecret } = await enrolled();
    const memberId = await createUser(t.deps.store, "mo@example.test", "Mo Member");
    await addMember(t.deps.store, orgId, memberId, "admin");
    const member = await signIn(t.deps.store, memberId, orgId);
    void ownerSecret;

    const byAdmin = await t.json("PUT", "/api/settings/two-factor", { cookie: member, body: { required: true } });
    expect(byAdmin.status).toBe(403);
    const bad = await t.json("PUT", "/api/settings/two-factor", { cookie: ownerCookie, body: { required: "yes" } });
    expect(bad.status).toBe(400);
    const on = await t.json("PUT", "/api/settings/two-factor", { cookie: ownerCookie, body: { required: true } });
    expect(on.status).toBe(200);
    expect(on.body).toEqual({ required: true });

    const refused = await t.json("GET", "/api/domains", { cookie: member });
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe("two_factor_required");
    expect(refused.body.error.message).toContain("Turn it on");
    const me = await t.json("GET", "/api/auth/me", { cookie: member });
    expect(me.status).toBe(200);
    expect(me.body.twoFactor).toEqual({ enabled: false, required: true });

    const setup = await t.json("POST", "/api/auth/2fa/setup", { cookie: member });
    expect((await t.json("POST", "/api/auth/2fa/enable", { cookie: member, body: { code: await codeFor(setup.body.secret) } })).status).toBe(200);
    expect((await t.json("GET", "/api/domains", { cookie: member })).status).toBe(200);
    expect((await t.json("GET", "/api/domains", { cookie: ownerCookie })).status).toBe(200);
  });

  test("the API token of a member without two-factor sign-in is refused while the rule is on, and works again once they turn it on or the rule is off", async () => {
    const { t, cookie: ownerCookie, email: ownerEmail, orgId } = await enrolled();
    const memberId = await createUser(t.deps.store, "mo@example.test", "Mo Member");
    await addMember(t.deps.store, orgId, memberId, "admin");
    const member = await signIn(t.deps.store, memberId, orgId);
    const made = async (cookie: string, name: string) => (await t.json("POST", "/api/tokens", { cookie, body: { name, role: "member" } })).body.token as string;
    const moToken = await made(member, "Mo's export");
    const ownerToken = await made(ownerCookie, "Owner's export");
    const withToken = (token: string) => t.json("GET", "/api/domains", { headers: { authorization: `Bearer ${token}` } });
    const heldBack = async () =>
      ((await t.json("GET", "/api/audit", { cookie: ownerCookie })).body.entries as any[]).filter((e) => e.action === "token.held_back").map((e) => `${e.actorLabel}: ${e.target} (${e.data.createdBy})`);
    expect((await withToken(moToken)).status).toBe(200);

    expect((await t.json("PUT", "/api/settings/two-factor", { cookie: ownerCookie, body: { required: true } })).status).toBe(200);
    for (let i = 0; i < 3; i++) {
      const refused = await withToken(moToken);
      expect(refused.status).toBe(403);
      expect(refused.body.error.code).toBe("two_factor_required");
      expect(refused.body.error.message).toContain("the person who created this API token has not turned it on");
    }
    // a token is judged by its creator: the owner's own token keeps working
    expect((await withToken(ownerToken)).status).toBe(200);
    // named once, when the rule was switched on, not at each refused call
    expect(await heldBack()).toEqual([`${ownerEmail}: Mo's export (mo@example.test)`]);
    // switching the rule on again while it is on names nothing more
    await t.json("PUT", "/api/settings/two-factor", { cookie: ownerCookie, body: { required: true } });
    expect(await heldBack()).toHaveLength(1);

    // the member turns two-factor sign-in on: the token works again
    const setup = await t.json("POST", "/api/auth/2fa/setup", { cookie: member });
    expect((await t.json("POST", "/api/auth/2fa/enable", { cookie: member, body: { code: await codeFor(setup.body.secret) } })).status).toBe(200);
    expect((await withToken(moToken)).status).toBe(200);

    // and off again: held back again, and named again, by the member who turned it off
    tick();
    expect((await t.json("POST", "/api/auth/2fa/disable", { cookie: member, body: { code: await codeFor(setup.body.secret) } })).status).toBe(200);
    expect((await withToken(moToken)).status).toBe(403);
    expect(await heldBack()).toEqual([`mo@example.test: Mo's export (mo@example.test)`, `${ownerEmail}: Mo's export (mo@example.test)`]);

    // the owner lifts the rule: the token works without two-factor sign-in
    expect((await t.json("PUT", "/api/settings/two-factor", { cookie: ownerCookie, body: { required: false } })).status).toBe(200);
    expect((await withToken(moToken)).status).toBe(200);
  });

  test("an owner without two-factor sign-in cannot require it for others", async () => {
    const { t, cookie } = await signedUp();
    const res = await t.json("PUT", "/api/settings/two-factor", { cookie, body: { required: true } });
    expect(res.status).toBe(409);
    expect(res.body.error.message).toContain("Turn on two-factor sign-in for your own account first");
  });
});

describe("a link that signs in asks for the second factor too", () => {
  const userIdOf = async (app: TestApp, email: string) => {
    const [user] = await app.deps.store.db.select({ id: app.deps.store.t.users.id }).from(app.deps.store.t.users).where(eq(app.deps.store.t.users.email, email));
    return user!.id;
  };
  const audit = async (app: TestApp, cookie: string) => ((await app.json("GET", "/api/audit", { cookie })).body.entries as any[]).map((e) => ({ action: e.action, actor: e.actorLabel, data: e.data }));

  test("a password reset with two-factor sign-in on sets the password but opens no session until the code; the code then signs in", async () => {
    const { t, cookie: oldSession, email, secret } = await enrolled();
    const { token } = await issuePasswordToken(t.deps, await userIdOf(t, email), clock);
    const res = await t.request("POST", "/api/auth/reset-password", { body: { token, password: "a brand new lantern 42" } });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ twoFactorRequired: true });
    expect(cookieFrom(res, "dw_session")).toBeUndefined();
    const pending = cookieFrom(res, "dw_2fa")!;
    expect(pending).toBeTruthy();
    expect((await t.json("GET", "/api/auth/me", { cookie: pending })).status).toBe(401);
    expect((await t.json("GET", "/api/domains", { cookie: pending })).status).toBe(401);
    // the link still ended the other sessions, and it works once
    expect((await t.json("GET", "/api/auth/me", { cookie: oldSession })).status).toBe(401);
    expect((await t.json("POST", "/api/auth/reset-password", { body: { token, password: "another new lantern 43" } })).status).toBe(404);

    const wrong = await t.json("POST", "/api/auth/login/2fa", { cookie: pending, body: { code: "000000" } });
    expect(wrong.status).toBe(401);
    const signedIn = await t.request("POST", "/api/auth/login/2fa", { cookie: pending, body: { code: await codeFor(secret) } });
    expect(signedIn.status).toBe(200);
    expect(((await signedIn.json()) as any).user.email).toBe(email);
    const session = cookieFrom(signedIn, "dw_session")!;
    expect((await t.json("GET", "/api/domains", { cookie: session })).status).toBe(200);

    // the new password is the one that works, and it too stops at the code
    const step = await t.json("POST", "/api/auth/login", { body: { email, password: "a brand new lantern 42" } });
    expect(step.body).toEqual({ twoFactorRequired: true });

    const entries = await audit(t, session);
    expect(entries).toContainEqual({ action: "auth.link_sign_in", actor: email, data: { link: "password reset", twoFactor: "code asked next" } });
    expect(entries).toContainEqual({ action: "auth.sign_in", actor: email, data: { twoFactor: true } });
  });

  test("a password reset without two-factor sign-in signs in at once, and the audit log names the link", async () => {
    const { t, email } = await signedUp();
    const { token } = await issuePasswordToken(t.deps, await userIdOf(t, email), clock);
    const res = await t.request("POST", "/api/auth/reset-password", { body: { token, password: "a brand new lantern 42" } });
    expect(res.status).toBe(200);
    expect(((await res.json()) as any).user.email).toBe(email);
    const session = cookieFrom(res, "dw_session")!;
    expect(await audit(t, session)).toContainEqual({ action: "auth.link_sign_in", actor: email, data: { link: "password reset" } });
  });

  test("an email confirmation link of an account with two-factor sign-in on asks for the code too", async () => {
    const { t, email, secret } = await enrolled();
    const token = newToken();
    const { emailVerificationTokens } = t.deps.store.t;
    const userId = await userIdOf(t, email);
    await t.deps.store.write((tx) => tx.insert(emailVerificationTokens).values({ userId, tokenHash: hashToken(token), createdAt: clock, expiresAt: new Date(clock.getTime() + 3600_000) }));
    const res = await t.request("POST", "/api/auth/verify-email", { body: { token } });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ twoFactorRequired: true });
    expect(cookieFrom(res, "dw_session")).toBeUndefined();
    const signedIn = await t.request("POST", "/api/auth/login/2fa", { cookie: cookieFrom(res, "dw_2fa"), body: { code: await codeFor(secret) } });
    expect(signedIn.status).toBe(200);
    expect(await audit(t, cookieFrom(signedIn, "dw_session")!)).toContainEqual({ action: "auth.link_sign_in", actor: email, data: { link: "email confirmation", twoFactor: "code asked next" } });
  });
});

test("the audit log records turning it on, a failed code and the sign-in with a code, without the code", async () => {
  const { t, cookie, email, secret } = await enrolled();
  const step = await passwordStep(t, email);
  await t.json("POST", "/api/auth/login/2fa", { cookie: step.pending, body: { code: "000000" } });
  const code = await codeFor(secret);
  expect((await t.json("POST", "/api/auth/login/2fa", { cookie: step.pending, body: { code } })).status).toBe(200);
  const audit = await t.json("GET", "/api/audit", { cookie });
  expect(audit.status).toBe(200);
  const actions = audit.body.entries.map((e: any) => `${e.action} ${e.actorLabel}`);
  expect(actions).toEqual(expect.arrayContaining([`auth.two_factor_enabled ${email}`, `auth.sign_in_failed ${email}`, `auth.sign_in ${email}`]));
  const text = JSON.stringify(audit.body);
  for (const value of [secret, code, "000000"]) expect(text).not.toContain(value);
});

test("secrets never appear in the logs, nor in answers after they were created", async () => {
  const { t, cookie, email, secret, recoveryCodes } = await enrolled();
  const step = await passwordStep(t, email);
  await t.json("POST", "/api/auth/login/2fa", { cookie: step.pending, body: { code: recoveryCodes[0] } });
  const answers = JSON.stringify([await t.json("GET", "/api/auth/me", { cookie }), await t.json("GET", "/api/settings", { cookie })]);
  const logs = t.logs.join("\n");
  expect(t.logs.length).toBeGreaterThan(3);
  for (const value of [secret, ...recoveryCodes, step.pending!.split("=")[1]!]) {
    expect(logs).not.toContain(value);
    expect(answers).not.toContain(value);
  }
});
