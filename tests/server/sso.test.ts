/**
 * Single sign-on with OpenID Connect against a real provider (`oidc-provider`) on 127.0.0.1:
 * the settings (admins, secret never answered, audit), the whole sign-in through app.handle
 * (the provider's login page submitted, its redirects followed), and every way a callback must
 * be refused: wrong state, an ID token of another flow (nonce), of another client (audience),
 * of another provider (issuer and signature), a disallowed or unverified email, and a code from
 * another organisation's identity provider. Issuers must be https and public unless
 * --allow-insecure-oidc. Allowed email domains are used only once proved: the organisation's TXT
 * record at _dmarcwarden-verify.<domain>, asked of the test DNS server on "Check now".
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { createSign, generateKeyPairSync } from "node:crypto";
import { eq } from "drizzle-orm";
import { createResolver } from "../../src/features/dns/resolver";
import { makeTestApp, cookieFrom, type TestApp } from "../support/app";
import { startDnsServer, type TestDnsServer } from "../support/dns-server";
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
/** where the organizations publish their domains' proof records */
let dns: TestDnsServer;

beforeAll(async () => {
  idp = await startOidcProvider({ clients: [ACME, OTHER_CLIENT] });
  impostor = await startOidcProvider({ clients: [ACME] });
  globexIdp = await startOidcProvider({ clients: [GLOBEX] });
  dns = await startDnsServer({});
});
afterAll(async () => {
  await Promise.all([idp.close(), impostor.close(), globexIdp.close(), dns.close()]);
});

let t: TestApp | null = null;
afterEach(async () => {
  idp.tamperTokens(null);
  await t?.close();
  t = null;
});

async function world(options: { allowInsecure?: boolean } = {}) {
  for (const name of Object.keys(dns.zone)) delete dns.zone[name];
  const resolver = createResolver({ servers: [{ host: dns.host, port: dns.port }], timeoutMs: 1000 });
  t = await makeTestApp({ config: { allowInsecureOidc: options.allowInsecure ?? true }, deps: { resolver } });
  const orgId = await createOrg(t.deps.store, "Acme Corp");
  const ownerId = await createUser(t.deps.store, "owner@acme.test", "Acme Owner");
  await addMember(t.deps.store, orgId, ownerId, "owner");
  const owner = await signIn(t.deps.store, ownerId, orgId);
  return { t, orgId, ownerId, owner };
}

const acmeSettings = (issuer = idp.issuer) => ({ issuer, clientId: ACME.clientId, clientSecret: ACME.clientSecret, allowedDomains: "acme.test, acme-labs.test", newUserRole: "member", enabled: true });

/** Publishes the proof record of each of the organization's pending domains (as Settings shows them), then checks them. */
async function proveDomains(t: TestApp, cookie: string) {
  const pending = ((await t.json("GET", "/api/sso", { cookie })).body.connection.domains as { status: string; record: { name: string; value: string } }[]).filter((d) => d.status === "pending");
  for (const { record } of pending) {
    const entry = (dns.zone[record.name] ??= {});
    entry.TXT = [...(entry.TXT ?? []), record.value];
  }
  const checked = await t.json("POST", "/api/sso/domains/check", { cookie });
  expect(checked.status).toBe(200);
  expect(checked.body.connection.domains.every((d: { status: string }) => d.status === "proved")).toBe(true);
  return checked.body;
}

async function configured(options: { allowInsecure?: boolean } = {}) {
  const w = await world(options);
  const saved = await w.t.json("PUT", "/api/sso", { cookie: w.owner, body: acmeSettings() });
  expect(saved.status).toBe(200);
  await proveDomains(w.t, w.owner);
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

describe("signing in through the organization's identity provider", () => {
  test("a new person with an allowed, verified address: the provider's sign-in, back with a session in the organization with the configured role", async () => {
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

const slugOf = async (t: TestApp, orgId: string) => (await t.deps.store.db.select().from(t.deps.store.t.organizations).where(eq(t.deps.store.t.organizations.id, orgId)))[0]!.slug;

/** Another organisation of the same app whose connection uses `issuer` and `client`, started by its short name. */
async function secondOrg(t: TestApp, name: string, issuer: string, client: { clientId: string; clientSecret: string }) {
  const orgId = await createOrg(t.deps.store, name);
  const ownerId = await createUser(t.deps.store, `owner@${name.toLowerCase().replace(/\W+/g, "")}.test`);
  await addMember(t.deps.store, orgId, ownerId, "owner");
  const owner = await signIn(t.deps.store, ownerId, orgId);
  const saved = await t.json("PUT", "/api/sso", { cookie: owner, body: { issuer, clientId: client.clientId, clientSecret: client.clientSecret, allowedDomains: ["acme.test"], newUserRole: "viewer" } });
  expect(saved.status).toBe(200);
  await proveDomains(t, owner);
  return { orgId, owner, slug: await slugOf(t, orgId) };
}

/** The token endpoint's answer of a whole, successful flow started with `identifier` at `provider`. */
async function capturedTokens(t: TestApp, provider: TestOidcProvider, identifier: string, login = "ada@acme.test") {
  let captured: Record<string, unknown> | null = null;
  provider.tamperTokens((answer) => ((captured = answer), answer));
  const done = await signInWithSso(t, identifier, login);
  provider.tamperTokens(null);
  expect(done.status).toBe(302);
  expect(done.location).toBe("/app");
  return captured!;
}

async function expectRefused(t: TestApp, done: { status: number; location: string; session?: string }, code: string, owner: string) {
  expect(done.status).toBe(302);
  expect(done.location).toBe(`/login?sso_error=${code}`);
  expect(done.session).toBeUndefined();
  const failed = (await t.json("GET", "/api/audit?action=auth.sign_in_failed", { cookie: owner })).body.entries as any[];
  expect(failed[0]?.data?.step).toBe("single sign-on");
  return failed[0].data.reason as string;
}

const acmeMembers = async (t: TestApp, orgId: string) =>
  (await t.deps.store.db.select().from(t.deps.store.t.memberships).where(eq(t.deps.store.t.memberships.orgId, orgId))).length;

describe("the callback refuses what it cannot trust", () => {
  test("a state that is not the one the flow began with", async () => {
    const { t, owner, orgId } = await configured();
    const { redirectUrl, flow } = await start(t, "ada@acme.test");
    const back = await signInAtProvider(redirectUrl, "ada@acme.test");
    back.searchParams.set("state", "not-the-state-we-sent");
    await expectRefused(t, await callback(t, back, flow), "failed", owner);
    expect(await usersNamed(t, "ada@acme.test")).toHaveLength(0);
    expect(await acmeMembers(t, orgId)).toBe(1);
  });

  test("no flow cookie (another browser, or expired): nothing is signed in", async () => {
    const { t } = await configured();
    const { redirectUrl } = await start(t, "ada@acme.test");
    const back = await signInAtProvider(redirectUrl, "ada@acme.test");
    const done = await callback(t, back, undefined);
    expect(done.location).toBe("/login?sso_error=expired");
    expect(done.session).toBeUndefined();
    // a forged cookie does not open either
    const forged = await callback(t, back, "dw_sso=v1.AAAA.BBBB.CCCC");
    expect(forged.location).toBe("/login?sso_error=expired");
  });

  test("an ID token of another flow (its nonce is not this flow's), though signed by the right provider", async () => {
    const { t, owner } = await configured();
    const earlier = await capturedTokens(t, idp, "ada@acme.test");
    idp.tamperTokens((answer) => ({ ...answer, id_token: earlier.id_token }));
    const reason = await expectRefused(t, await signInWithSso(t, "ada@acme.test"), "failed", owner);
    expect(reason).toContain("nonce");
  });

  test("an ID token issued to another client of the same provider (audience)", async () => {
    const { t, owner, orgId } = await configured();
    const other = await secondOrg(t, "Other App", idp.issuer, OTHER_CLIENT);
    const foreign = await capturedTokens(t, idp, other.slug);
    idp.tamperTokens((answer) => ({ ...answer, id_token: foreign.id_token }));
    const reason = await expectRefused(t, await signInWithSso(t, await slugOf(t, orgId), "ada@acme.test"), "failed", owner);
    expect(reason).toContain("aud");
  });

  test("an ID token of another provider (issuer, and a signature the issuer's JWKS does not verify)", async () => {
    const { t, owner, orgId } = await configured();
    const rogue = await secondOrg(t, "Rogue Co", impostor.issuer, ACME);
    const forged = await capturedTokens(t, impostor, rogue.slug);
    idp.tamperTokens((answer) => ({ ...answer, id_token: forged.id_token }));
    const reason = await expectRefused(t, await signInWithSso(t, await slugOf(t, orgId), "ada@acme.test"), "failed", owner);
    expect(reason).toMatch(/iss|signature/);
  });

  test("this flow's own ID token re-signed with a key the issuer's JWKS does not hold, or unsigned (alg none)", async () => {
    const { t, owner } = await configured();
    const { privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
    const b64 = (bytes: Uint8Array | string) => Buffer.from(bytes).toString("base64url");
    idp.tamperTokens((answer) => {
      // the provider's header (its kid) and this flow's claims, nonce included: only the signature is not the provider's
      const [header, payload] = String(answer.id_token).split(".");
      const input = `${header}.${payload}`;
      return { ...answer, id_token: `${input}.${b64(createSign("RSA-SHA256").update(input).sign(privateKey))}` };
    });
    const reason = await expectRefused(t, await signInWithSso(t, "ada@acme.test"), "failed", owner);
    expect(reason).toMatch(/signature/i);

    idp.tamperTokens((answer) => {
      const [, payload] = String(answer.id_token).split(".");
      return { ...answer, id_token: `${b64(JSON.stringify({ alg: "none" }))}.${payload}.` };
    });
    const unsigned = await expectRefused(t, await signInWithSso(t, "ada@acme.test"), "failed", owner);
    expect(unsigned).toMatch(/alg|signature|JWS/i);
    expect(await usersNamed(t, "ada@acme.test")).toHaveLength(0);
  });

  test("a code from another organization's identity provider: with the other flow's state it is refused by state, with this flow's state by the token endpoint", async () => {
    const { t, owner, orgId } = await configured();
    const globex = await secondOrg(t, "Globex", globexIdp.issuer, GLOBEX);
    // Acme's flow begins in this browser; the person finishes Globex's flow instead
    const acme = await start(t, await slugOf(t, orgId));
    const theirs = await start(t, globex.slug);
    const back = await signInAtProvider(theirs.redirectUrl, "ada@acme.test");
    await expectRefused(t, await callback(t, back, acme.flow), "failed", owner);
    // Globex's code under Acme's own state
    const swapped = new URL(back);
    swapped.searchParams.set("state", new URL(acme.redirectUrl).searchParams.get("state")!);
    swapped.searchParams.delete("iss");
    const done = await callback(t, swapped, acme.flow);
    expect(done.location).toBe("/login?sso_error=failed");
    expect(done.session).toBeUndefined();
    expect(await acmeMembers(t, orgId)).toBe(1);
    expect(await acmeMembers(t, globex.orgId)).toBe(1);
  });

  test("an email domain the organization does not allow: no account, no membership", async () => {
    const { t, owner, orgId } = await configured();
    const slug = await slugOf(t, orgId);
    await expectRefused(t, await signInWithSso(t, slug, "eve@elsewhere.test"), "domain_not_allowed", owner);
    expect(await usersNamed(t, "eve@elsewhere.test")).toHaveLength(0);
    expect(await acmeMembers(t, orgId)).toBe(1);
  });

  test("an email the provider does not say is verified is never linked to the existing account", async () => {
    const { t, owner, orgId } = await configured();
    const bobId = await createUser(t.deps.store, "bob@acme.test", "Bob");
    const elsewhere = await createOrg(t.deps.store, "Bob's Own");
    await addMember(t.deps.store, elsewhere, bobId, "owner");
    await expectRefused(t, await signInWithSso(t, "bob@acme.test", "unverified:bob@acme.test"), "email_not_verified", owner);
    expect(await acmeMembers(t, orgId)).toBe(1);
  });

  test("the provider's own refusal (access_denied) and a connection turned off mid-flow", async () => {
    const { t, owner } = await configured();
    const { flow } = await start(t, "ada@acme.test");
    const denied = await callback(t, new URL(`${CALLBACK}?error=access_denied&state=x`), flow);
    expect(denied.location).toBe("/login?sso_error=denied");

    const second = await start(t, "ada@acme.test");
    const back = await signInAtProvider(second.redirectUrl, "ada@acme.test");
    expect((await t.json("PUT", "/api/sso", { cookie: owner, body: { ...acmeSettings(), clientSecret: undefined, enabled: false } })).status).toBe(200);
    const done = await callback(t, back, second.flow);
    expect(done.location).toBe("/login?sso_error=disabled");
    expect(done.session).toBeUndefined();
    // and a turned-off connection is not offered at the start
    expect((await t.json("POST", "/api/auth/sso/start", { body: { identifier: "ada@acme.test" } })).status).toBe(404);
  });
});

describe("existing accounts and two-factor sign-in", () => {
  test("an existing account with the verified, allowed email is signed in and joins with the configured role; an admin keeps their role", async () => {
    const { t, orgId, owner } = await configured();
    // an account in no organisation yet (e.g. its own was deleted)
    const carolId = await createUser(t.deps.store, "carol@acme-labs.test", "Carol");
    const done = await signInWithSso(t, "carol@acme-labs.test");
    expect(done.location).toBe("/app");
    const me = await t.json("GET", "/api/auth/me", { cookie: done.session });
    expect(me.body.user.id).toBe(carolId);
    expect(me.body.currentOrg).toMatchObject({ id: orgId, role: "member" });
    expect(me.body.organizations).toHaveLength(1);

    const daveId = await createUser(t.deps.store, "dave@acme.test", "Dave");
    await addMember(t.deps.store, orgId, daveId, "admin");
    const dave = await signInWithSso(t, "dave@acme.test");
    const daveMe = await t.json("GET", "/api/auth/me", { cookie: dave.session });
    expect(daveMe.body.currentOrg.role).toBe("admin");
    const joined = (await t.json("GET", "/api/audit?action=member.joined", { cookie: owner })).body.entries.map((e: any) => e.target);
    expect(joined).toEqual(["carol@acme-labs.test"]);
  });

  test("an account that also belongs to another organization is never opened by this organization's provider (it vouches for any address it likes)", async () => {
    const { t, orgId, owner } = await configured();
    const victimId = await createUser(t.deps.store, "ceo@acme.test", "The CEO");
    const elsewhere = await createOrg(t.deps.store, "Board Seats Ltd");
    await addMember(t.deps.store, elsewhere, victimId, "owner");
    const reason = await expectRefused(t, await signInWithSso(t, "ceo@acme.test"), "account_elsewhere", owner);
    expect(reason).toContain("other organization");
    expect(await acmeMembers(t, orgId)).toBe(1);
    // a member of this organisation who also works in another is refused too
    await addMember(t.deps.store, orgId, victimId, "viewer");
    await expectRefused(t, await signInWithSso(t, "ceo@acme.test"), "account_elsewhere", owner);
  });

  test("single sign-on does not replace the account's own second factor: the code comes next, then the session", async () => {
    const { t } = await configured();
    const { base32Decode, totp } = await import("../../src/lib/totp");
    const first = await signInWithSso(t, "erin@acme.test");
    const setup = await t.json("POST", "/api/auth/2fa/setup", { cookie: first.session });
    const secret = base32Decode(setup.body.secret)!;
    expect((await t.json("POST", "/api/auth/2fa/enable", { cookie: first.session, body: { code: await totp(secret, new Date()) } })).status).toBe(200);

    const second = await signInWithSso(t, "erin@acme.test");
    expect(second.status).toBe(302);
    expect(second.location).toBe("/login?sso=code&next=%2Fapp");
    expect(second.session).toBeUndefined();
    expect(second.pending).toBeTruthy();
    const code = await t.json("POST", "/api/auth/login/2fa", { cookie: second.pending, body: { code: await totp(secret, new Date(Date.now() + 30_000)) } });
    expect(code.status).toBe(200);
    expect(code.body.user.email).toBe("erin@acme.test");
  });

  test("an organization that requires two-factor sign-in still sends a new single sign-on member to enroll first", async () => {
    const { t, orgId } = await configured();
    const { setTwoFactorRequired } = await import("../../src/features/settings/two-factor-policy");
    await setTwoFactorRequired(t.deps, orgId, true, new Date());
    const done = await signInWithSso(t, "hal@acme.test");
    expect(done.location).toBe("/app");
    const me = await t.json("GET", "/api/auth/me", { cookie: done.session });
    expect(me.body.twoFactor).toEqual({ enabled: false, required: true });
    const refused = await t.json("GET", "/api/domains", { cookie: done.session });
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe("two_factor_required");
  });
});

describe("choosing the organization at the start", () => {
  test("by email domain, by short name; unknown and ambiguous domains say what to do", async () => {
    const { t, orgId } = await configured();
    expect((await t.json("POST", "/api/auth/sso/start", { body: { identifier: await slugOf(t, orgId) } })).status).toBe(200);
    const unknown = await t.json("POST", "/api/auth/sso/start", { body: { identifier: "zed@nowhere.test" } });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.message).toContain("nowhere.test");
    expect((await t.json("POST", "/api/auth/sso/start", { body: { identifier: "no-such-org" } })).status).toBe(404);
    expect((await t.json("POST", "/api/auth/sso/start", { body: { identifier: "" } })).status).toBe(400);

    await secondOrg(t, "Acme Twin", globexIdp.issuer, GLOBEX);
    const ambiguous = await t.json("POST", "/api/auth/sso/start", { body: { identifier: "zoe@acme.test" } });
    expect(ambiguous.status).toBe(409);
    expect(ambiguous.body.error.message).toContain("short name");
    // a member of one of them is sent to their own
    const frankId = await createUser(t.deps.store, "frank@acme.test");
    await addMember(t.deps.store, orgId, frankId, "viewer");
    const mine = await t.json("POST", "/api/auth/sso/start", { body: { identifier: "frank@acme.test" } });
    expect(mine.status).toBe(200);
    expect(new URL(mine.body.redirectUrl).origin).toBe(idp.origin);
  });
});

describe("settings", () => {
  test("admins read and save; the client secret is sealed, never answered, never in the audit log or the server log", async () => {
    const { t, owner, orgId } = await world();
    const empty = await t.json("GET", "/api/sso", { cookie: owner });
    expect(empty.status).toBe(200);
    expect(empty.body).toEqual({ connection: null, redirectUri: CALLBACK, organizationSlug: await slugOf(t, orgId) });

    const saved = await t.json("PUT", "/api/sso", { cookie: owner, body: acmeSettings() });
    expect(saved.status).toBe(200);
    expect(saved.body).toMatchObject({ issuer: idp.issuer, clientId: ACME.clientId, hasClientSecret: true, allowedDomains: ["acme.test", "acme-labs.test"], newUserRole: "member", enabled: true });
    const read = await t.json("GET", "/api/sso", { cookie: owner });
    const [row] = await t.deps.store.db.select().from(t.deps.store.t.ssoConnections);
    const audit = await t.json("GET", "/api/audit?action=sso.configured", { cookie: owner });
    expect(audit.body.entries[0]).toMatchObject({ target: idp.issuer, data: { changed: ["created"], clientId: ACME.clientId } });
    for (const text of [JSON.stringify(saved.body), JSON.stringify(read.body), JSON.stringify(row), JSON.stringify(audit.body), t.logs.join("\n")]) expect(text).not.toContain(ACME.clientSecret);

    await proveDomains(t, owner);
    // a change without a secret keeps the stored one (sign-in still works); the audit names what changed
    const changed = await t.json("PUT", "/api/sso", { cookie: owner, body: { ...acmeSettings(), clientSecret: "", newUserRole: "viewer" } });
    expect(changed.status).toBe(200);
    expect((await signInWithSso(t, "gus@acme.test")).location).toBe("/app");
    const latest = (await t.json("GET", "/api/audit?action=sso.configured", { cookie: owner })).body.entries[0];
    expect(latest.data.changed).toEqual(["role for new users"]);

    const removed = await t.json("DELETE", "/api/sso", { cookie: owner });
    expect(removed.status).toBe(200);
    expect((await t.json("GET", "/api/sso", { cookie: owner })).body.connection).toBeNull();
    expect((await t.json("DELETE", "/api/sso", { cookie: owner })).status).toBe(404);
  });

  test("bad input says what to fix; a wrong client secret or issuer is caught", async () => {
    const { t, owner } = await world();
    const noSecret = await t.json("PUT", "/api/sso", { cookie: owner, body: { ...acmeSettings(), clientSecret: "" } });
    expect(noSecret.status).toBe(400);
    expect(noSecret.body.error.fields.clientSecret).toBeTruthy();
    const noDomains = await t.json("PUT", "/api/sso", { cookie: owner, body: { ...acmeSettings(), allowedDomains: "" } });
    expect(noDomains.body.error.fields.allowedDomains).toContain("email domain");
    const badDomain = await t.json("PUT", "/api/sso", { cookie: owner, body: { ...acmeSettings(), allowedDomains: "acme.test, not a domain" } });
    expect(badDomain.status).toBe(400);
    const ownerRole = await t.json("PUT", "/api/sso", { cookie: owner, body: { ...acmeSettings(), newUserRole: "owner" } });
    expect(ownerRole.status).toBe(400);
    // the discovery document's issuer must be exactly the one given (localhost is not 127.0.0.1)
    const mismatch = await t.json("PUT", "/api/sso", { cookie: owner, body: acmeSettings(idp.issuer.replace("127.0.0.1", "localhost")) });
    expect(mismatch.status).toBe(400);
    expect(mismatch.body.error.fields.issuer).toBeTruthy();
    const nothingThere = await t.json("PUT", "/api/sso", { cookie: owner, body: acmeSettings("http://127.0.0.1:9/nothing") });
    expect(nothingThere.status).toBe(400);
  });

  test("without --allow-insecure-oidc an issuer must be https and public", async () => {
    const { t, owner } = await world({ allowInsecure: false });
    const http = await t.json("PUT", "/api/sso", { cookie: owner, body: acmeSettings() });
    expect(http.status).toBe(400);
    expect(http.body.error.fields.issuer).toBe("The issuer must be an https:// address.");
    const loopback = await t.json("PUT", "/api/sso", { cookie: owner, body: acmeSettings("https://127.0.0.1:8443") });
    expect(loopback.status).toBe(400);
    expect(t.logs.join("\n")).toContain("loopback");
    const internal = await t.json("PUT", "/api/sso", { cookie: owner, body: acmeSettings("https://10.1.2.3") });
    expect(internal.status).toBe(400);
    expect(await t.deps.store.db.select().from(t.deps.store.t.ssoConnections)).toHaveLength(0);
  });

  test("members and viewers cannot read or change it; API tokens are refused", async () => {
    const { t, orgId, ownerId } = await configured();
    for (const role of ["member", "viewer"] as const) {
      const id = await createUser(t.deps.store, `${role}@acme.test`);
      await addMember(t.deps.store, orgId, id, role);
      const cookie = await signIn(t.deps.store, id, orgId);
      expect((await t.json("GET", "/api/sso", { cookie })).status).toBe(403);
      expect((await t.json("PUT", "/api/sso", { cookie, body: acmeSettings() })).status).toBe(403);
    }
    const { hashToken } = await import("../../src/lib/tokens");
    await t.deps.store.db.insert(t.deps.store.t.apiTokens).values({ orgId, name: "ci", role: "admin", tokenHash: hashToken("dwt_sso-admin-token"), createdBy: ownerId });
    expect((await t.json("GET", "/api/sso", { headers: { authorization: "Bearer dwt_sso-admin-token" } })).status).toBe(403);
  });
});

describe("allowed email domains must be proved", () => {
  test("an unproved allowed domain is pending: its addresses get no account in the organization; once its TXT record is published and checked, they sign in", async () => {
    const { t, orgId, owner } = await world();
    const saved = await t.json("PUT", "/api/sso", { cookie: owner, body: { ...acmeSettings(), allowedDomains: "acme.test, other.test" } });
    expect(saved.status).toBe(200);
    const domains = saved.body.domains as { domain: string; status: string; record: { name: string; type: string; value: string } }[];
    expect(domains.map((d) => [d.domain, d.status, d.record.name, d.record.type])).toEqual([
      ["acme.test", "pending", "_dmarcwarden-verify.acme.test", "TXT"],
      ["other.test", "pending", "_dmarcwarden-verify.other.test", "TXT"],
    ]);
    const slug = await slugOf(t, orgId);

    // pending: not offered by email domain, and a sign-in through the organization's short name creates nothing
    const start = await t.json("POST", "/api/auth/sso/start", { body: { identifier: "victim@other.test" } });
    expect(start.status).toBe(404);
    const reason = await expectRefused(t, await signInWithSso(t, slug, "victim@other.test"), "domain_not_proved", owner);
    expect(reason).toContain("other.test");
    expect(await usersNamed(t, "victim@other.test")).toHaveLength(0);
    expect(await acmeMembers(t, orgId)).toBe(1);

    // checked without a record, or with another organization's value: still pending, and the answer says what to publish
    const other = domains.find((d) => d.domain === "other.test")!;
    dns.zone[other.record.name] = { TXT: ["dmarcwarden-verify=someone-elses-token"] };
    const notYet = await t.json("POST", "/api/sso/domains/check", { cookie: owner });
    expect(notYet.status).toBe(200);
    expect(notYet.body.results).toEqual([
      { domain: "acme.test", status: "pending", message: expect.stringContaining("_dmarcwarden-verify.acme.test has no TXT record.") },
      { domain: "other.test", status: "pending", message: expect.stringContaining(`Publish this DNS record, then check again: ${other.record.name} TXT "${other.record.value}"`) },
    ]);
    expect(dns.questions).toContain(`TXT ${other.record.name}`);
    await expectRefused(t, await signInWithSso(t, slug, "victim@other.test"), "domain_not_proved", owner);

    // the record published and checked: proved (audited), and the address signs in
    dns.zone[other.record.name] = { TXT: [other.record.value] };
    const checked = await t.json("POST", "/api/sso/domains/check", { cookie: owner });
    expect(checked.body.results.find((r: { domain: string }) => r.domain === "other.test")).toMatchObject({ status: "proved" });
    expect(checked.body.connection.domains.map((d: { domain: string; status: string }) => `${d.domain} ${d.status}`)).toEqual(["acme.test pending", "other.test proved"]);
    expect((await t.json("GET", "/api/sso", { cookie: owner })).body.connection.domains[1].status).toBe("proved");
    const audit = (await t.json("GET", "/api/audit?action=sso.configured", { cookie: owner })).body.entries[0];
    expect(audit.data).toEqual({ changed: ["domains proved"], proved: ["other.test"] });
    const done = await signInWithSso(t, "victim@other.test");
    expect(done.location).toBe("/app");
    expect(await usersNamed(t, "victim@other.test")).toHaveLength(1);
    // still pending acme.test stays refused
    await expectRefused(t, await signInWithSso(t, slug, "ada@acme.test"), "domain_not_proved", owner);

    // a domain removed from the list loses its proof: listed again, it is pending until checked again
    expect((await t.json("PUT", "/api/sso", { cookie: owner, body: { ...acmeSettings(), clientSecret: undefined, allowedDomains: "acme.test" } })).status).toBe(200);
    const relisted = await t.json("PUT", "/api/sso", { cookie: owner, body: { ...acmeSettings(), clientSecret: undefined, allowedDomains: "acme.test, other.test" } });
    expect(relisted.body.domains.map((d: { status: string }) => d.status)).toEqual(["pending", "pending"]);
  });

  test("checking needs a connection, and members may not check", async () => {
    const { t, orgId, owner } = await world();
    const none = await t.json("POST", "/api/sso/domains/check", { cookie: owner });
    expect(none.status).toBe(404);
    expect(none.body.error.message).toContain("no single sign-on");
    expect((await t.json("PUT", "/api/sso", { cookie: owner, body: acmeSettings() })).status).toBe(200);
    const memberId = await createUser(t.deps.store, "member@acme.test");
    await addMember(t.deps.store, orgId, memberId, "member");
    expect((await t.json("POST", "/api/sso/domains/check", { cookie: await signIn(t.deps.store, memberId, orgId) })).status).toBe(403);
  });
});
