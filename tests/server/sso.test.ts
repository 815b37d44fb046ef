/**
 * Single sign-on with OpenID Connect against a real provider (`oidc-provider`) on 127.0.0.1:
 * the settings (admins, secret never answered, audit), the whole sign-in through app.handle
 * (the provider's login page submitted, its redirects followed), and every way a callback must
 * be refused: wrong state, an ID token of another flow (nonce), of another client (audience),
 * of another provider (issuer and signature), a disallowed or unverified email, and a code from
 * another organisation's identity provider. Issuers must be https and public unless
 * --allow-insecure-oidc.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { makeTestApp, cookieFrom, type TestApp } from "../support/app";
import { addMember, createOrg, createUser, signIn } from "../support/fixtures";
import { CookieJar, signInAtProvider, startOidcProvider, type TestOidcProvider } from "../support/oidc-provider";

const CALLBACK = "http://localhost/api/auth/sso/callback";
const ACME = { clientId: "dmarcwarden-acme", clientSecret: "acme-client-secret-4b1d0c9e7f", redirectUris: [CALLBACK] };
const OTHER_CLIENT = { clientId: "another-app", clientSecret: "another-app-secret-5566", redirectUris: [CALLBACK] };
const GLOBEX = { clientId: "dmarcwarden-globex", clientSecret: "globex-client-secret-99aa", redirectUris: [CALLBACK] };

let idp: TestOidcProvider;
/** a second provider that also knows the Acme client (an impostor with its own keys) */
let impostor: TestOidcProvider;
let globexIdp: TestOidcProvider;

beforeAll(async () => {
  idp = await startOidcProvider({ clients: [ACME, OTHER_CLIENT] });
  impostor = await startOidcProvider({ clients: [ACME] });
  globexIdp = await startOidcProvider({ clients: [GLOBEX] });
});
afterAll(async () => {
  await Promise.all([idp.close(), impostor.close(), globexIdp.close()]);
});

let t: TestApp | null = null;
afterEach(async () => {
  idp.tamperTokens(null);
  await t?.close();
  t = null;
});

async function world(options: { allowInsecure?: boolean } = {}) {
  t = await makeTestApp({ config: { allowInsecureOidc: options.allowInsecure ?? true } });
  const orgId = await createOrg(t.deps.store, "Acme Corp");
  const ownerId = await createUser(t.deps.store, "owner@acme.test", "Acme Owner");
  await addMember(t.deps.store, orgId, ownerId, "owner");
  const owner = await signIn(t.deps.store, ownerId, orgId);
  return { t, orgId, ownerId, owner };
}

const acmeSettings = (issuer = idp.issuer) => ({ issuer, clientId: ACME.clientId, clientSecret: ACME.clientSecret, allowedDomains: "acme.test, acme-labs.test", newUserRole: "member", enabled: true });

async function configured(options: { allowInsecure?: boolean } = {}) {
  const w = await world(options);
  const saved = await w.t.json("PUT", "/api/sso", { cookie: w.owner, body: acmeSettings() });
  expect(saved.status).toBe(200);
  return w;
}

/** POST /api/auth/sso/start → the provider's URL and the flow cookie. */
async function start(t: TestApp, identifier: string) {
  const res = await t.request("POST", "/api/auth/sso/start", { body: { identifier } });
  const body = await res.json();
  expect(res.status).toBe(200);
  return { redirectUrl: body.redirectUrl as string, flow: cookieFrom(res, "dw_sso")! };
}

/** The callback as the browser brings it back; answers the redirect's location and cookies. */
async function callback(t: TestApp, url: URL, flow: string | undefined) {
  const res = await t.request("GET", `${url.pathname}${url.search}`, { cookie: flow });
  return { status: res.status, location: res.headers.get("location") ?? "", session: cookieFrom(res, "dw_session"), pending: cookieFrom(res, "dw_2fa"), res };
}

/** A whole sign-in as `login` at the provider. */
async function signInWithSso(t: TestApp, identifier: string, login = identifier) {
  const { redirectUrl, flow } = await start(t, identifier);
  const back = await signInAtProvider(redirectUrl, login);
  return callback(t, back, flow);
}

const usersNamed = async (t: TestApp, email: string) => t.deps.store.db.select().from(t.deps.store.t.users).where(eq(t.deps.store.t.users.email, email));

describe("signing in through the organisation's identity provider", () => {
  test("a new person with an allowed, verified address: the provider's sign-in, back with a session in the organisation with the configured role", async () => {
    const { t, orgId, owner } = await configured();
    const { redirectUrl, flow } = await start(t, "Ada@Acme.test");
    const auth = new URL(redirectUrl);
    expect(auth.origin).toBe(idp.origin);
    expect(auth.searchParams.get("code_challenge_method")).toBe("S256");
    expect(auth.searchParams.get("code_challenge")).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(auth.searchParams.get("state")).toBeTruthy();
    expect(auth.searchParams.get("nonce")).toBeTruthy();
    expect(auth.searchParams.get("redirect_uri")).toBe(CALLBACK);
    expect(auth.searchParams.get("login_hint")).toBe("ada@acme.test");
    // the flow cookie carries no readable secret: state, nonce and verifier are sealed
    expect(flow).not.toContain(auth.searchParams.get("state")!);

    const back = await signInAtProvider(redirectUrl, "ada@acme.test");
    expect(back.origin + back.pathname).toBe(CALLBACK);
    const done = await callback(t, back, flow);
    expect(done.status).toBe(302);
    expect(done.location).toBe("/app");
    expect(done.session).toBeTruthy();
    expect(done.res.headers.getSetCookie().some((c) => c.startsWith("dw_sso=;") && c.includes("Max-Age=0"))).toBe(true);

    const me = await t.json("GET", "/api/auth/me", { cookie: done.session });
    expect(me.status).toBe(200);
    expect(me.body.user.email).toBe("ada@acme.test");
    expect(me.body.currentOrg).toMatchObject({ id: orgId, role: "member" });
    const [user] = await usersNamed(t, "ada@acme.test");
    expect(user!.passwordHash).toBeNull();
    expect(user!.emailVerifiedAt).not.toBeNull();
    // she can work in the organisation at once
    expect((await t.json("GET", "/api/domains", { cookie: done.session })).status).toBe(200);

    const audit = (await t.json("GET", "/api/audit", { cookie: owner })).body.entries as any[];
    const signInEntry = audit.find((e) => e.action === "auth.sign_in");
    expect(signInEntry.actorLabel).toBe("ada@acme.test");
    expect(signInEntry.data).toMatchObject({ method: "single sign-on", issuer: idp.issuer });
    expect(audit.find((e) => e.action === "member.joined")).toMatchObject({ target: "ada@acme.test", data: { via: "single sign-on", role: "member" } });

    // a second sign-in: the same account, no second membership
    const again = await signInWithSso(t, "ada@acme.test");
    expect(again.status).toBe(302);
    expect(await usersNamed(t, "ada@acme.test")).toHaveLength(1);
    const members = await t.json("GET", "/api/members", { cookie: owner });
    expect(members.body.members.filter((m: any) => m.email === "ada@acme.test")).toHaveLength(1);
  });
});
