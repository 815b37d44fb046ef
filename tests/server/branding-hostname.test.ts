/**
 * An MSP's custom hostname (issue 17, white-label): set in PUT /api/branding (validated, not the
 * deployment's own host, unique); a request whose Host is that name gets the MSP's branding on
 * the signed-out pages; mail links for its organisations (invitations, password links, alerts)
 * use https://<hostname>. The Host header only selects among stored names: links are never built
 * from it, and cookies stay host-only.
 */
import { afterEach, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { auditLog, organizationBranding, organizations } from "../../src/db/schema";
import { HOSTNAME_IS_OWN, HOSTNAME_TAKEN } from "../../src/features/branding/service";
import { createMailer } from "../../src/features/mail/mailer";
import { makeTestApp, type TestApp } from "../support/app";
import { addMember, createOrg, createUser, signIn } from "../support/fixtures";
import { startMailCapture, type MailCapture } from "../support/mail-capture";

let t: TestApp | null = null;
let capture: MailCapture | null = null;
afterEach(async () => {
  t?.close();
  t = null;
  await capture?.stop();
  capture = null;
});

const HOST = "dmarc.msp-example.com";
const PUBLIC_URL = "https://dw.example.test";

async function world(options: { mail?: boolean; deps?: Record<string, unknown> } = {}) {
  let mailer;
  if (options.mail) {
    capture = await startMailCapture();
    mailer = createMailer({ relay: { host: "127.0.0.1", port: capture.port, secure: false, auth: null }, from: "dmarcwarden <alerts@dw.example.test>", publicUrl: PUBLIC_URL });
  }
  t = await makeTestApp({ config: { publicUrl: PUBLIC_URL }, deps: { ...(mailer ? { mailer } : {}), ...options.deps } });
  const { store } = t.deps;
  const mspId = await createOrg(store, "Acme MSP");
  const clientId = await createOrg(store, "Client Bakery", mspId);
  const owner = await createUser(store, "msp-owner@example.test", "Mia Owner");
  await addMember(store, mspId, owner, "owner");
  const baker = await createUser(store, "baker@example.test", "Ben Baker");
  await addMember(store, clientId, baker, "viewer");
  return { t, store, mspId, clientId, owner, baker, ownerCookie: await signIn(store, owner, mspId) };
}

const put = (w: { t: TestApp; ownerCookie: string }, customHostname: string, cookie = w.ownerCookie) =>
  w.t.json("PUT", "/api/branding", { cookie, body: { productName: "Acme Mail Shield", primaryColor: "#ff6600", supportEmail: "help@acme.example", customHostname } });
const onHost = (host: string) => ({ headers: { host } });

test("an MSP sets its hostname (normalized, audited); it is validated, not the server's own, and unique", async () => {
  const w = await world();
  const saved = await put(w, " Dmarc.MSP-Example.com. ");
  expect(saved.status).toBe(200);
  expect(saved.body.customHostname).toBe(HOST);
  expect((await w.t.json("GET", "/api/branding", { cookie: w.ownerCookie })).body.customHostname).toBe(HOST);
  const audit = await w.store.db.select().from(auditLog).where(eq(auditLog.orgId, w.mspId));
  expect(audit.map((r) => JSON.parse(r.data!))).toContainEqual({ branding: { productName: "Acme Mail Shield", primaryColor: "#ff6600", supportEmail: "help@acme.example", customHostname: HOST } });

  for (const bad of ["https://dmarc.msp-example.com/login", "dmarc msp.com", "localhost", "192.0.2.10", "-bad.example.com", "dmarc.msp-example.com:8443/x"]) {
    const res = await put(w, bad);
    expect(`${bad} ${res.status}`).toBe(`${bad} 400`);
    expect(res.body.error.fields.customHostname).toBeTruthy();
  }
  const own = await put(w, "DW.example.test");
  expect(own.status).toBe(400);
  expect(own.body.error.message).toBe(HOSTNAME_IS_OWN);

  // another MSP cannot take it, in any spelling
  const other = await createOrg(w.store, "Other MSP");
  const otherOwner = await createUser(w.store, "other@example.test");
  await addMember(w.store, other, otherOwner, "owner");
  const taken = await put(w, "DMARC.msp-example.com", await signIn(w.store, otherOwner, other));
  expect(taken.status).toBe(409);
  expect(taken.body.error.message).toBe(HOSTNAME_TAKEN);
  // a client does not set one (its MSP does)
  const clientAdmin = await createUser(w.store, "client-admin@example.test");
  await addMember(w.store, w.clientId, clientAdmin, "admin");
  expect((await put(w, "bakery.example.com", await signIn(w.store, clientAdmin, w.clientId))).status).toBe(403);
  // the stored name is unchanged by all of that; leaving the field out keeps it; empty clears it
  expect((await w.t.json("PUT", "/api/branding", { cookie: w.ownerCookie, body: { productName: "Acme Mail Shield", primaryColor: "", supportEmail: "" } })).body.customHostname).toBe(HOST);
  expect((await put(w, "")).body.customHostname).toBeNull();
  const rows = await w.store.db.select().from(organizationBranding).where(eq(organizationBranding.orgId, w.mspId));
  expect(rows[0]!.customHostname).toBeNull();
});

test("signed out on the MSP's hostname: its name, logo and colour; any other host: the default", async () => {
  const w = await world();
  await put(w, HOST);
  const brand = { productName: "Acme Mail Shield", primaryColor: "#ff6600", logoUrl: null };
  for (const host of [HOST, "DMARC.msp-example.com:443", `${HOST}.`]) {
    expect((await w.t.json("GET", "/api/branding/public", onHost(host))).body).toEqual(brand);
    // GET /api/branding answers signed-out callers the same way (no support address, no settings)
    const signedOut = await w.t.json("GET", "/api/branding", onHost(host));
    expect(signedOut.status).toBe(200);
    expect(signedOut.body).toEqual(brand);
  }
  const plain = { productName: "dmarcwarden", primaryColor: null, logoUrl: null };
  for (const host of ["dw.example.test", "unknown.example.com", "msp-example.com", "127.0.0.1:3000", "x".repeat(300)]) {
    expect((await w.t.json("GET", "/api/branding/public", onHost(host))).body).toEqual(plain);
    expect((await w.t.json("GET", "/api/branding", onHost(host))).body).toEqual(plain);
  }
  // ?brand= still names the MSP explicitly, whatever the host
  const [msp] = await w.store.db.select().from(organizations).where(eq(organizations.id, w.mspId));
  expect((await w.t.json("GET", `/api/branding/public?brand=${msp!.slug}`, onHost("unknown.example.com"))).body).toEqual(brand);
  // signed in, the caller's own organisation decides, not the host; a bad token is still refused
  const bakerCookie = await signIn(w.store, w.baker, w.clientId);
  expect((await w.t.json("GET", "/api/branding", { cookie: bakerCookie, headers: { host: "unknown.example.com" } })).body).toMatchObject({ productName: "Acme Mail Shield", source: "parent", isClient: true });
  expect((await w.t.json("GET", "/api/branding", { headers: { host: HOST, authorization: "Bearer dw_not-a-token" } })).status).toBe(401);
});

test("below the Scale plan (billing on) the hostname brands nothing and mail keeps --public-url", async () => {
  const w = await world({ deps: { stripe: {} } });
  await w.store.write((tx) => tx.update(organizations).set({ plan: "scale", planStatus: "active" }).where(eq(organizations.id, w.mspId)));
  expect((await put(w, HOST)).status).toBe(200);
  expect((await w.t.json("GET", "/api/branding/public", onHost(HOST))).body.productName).toBe("Acme Mail Shield");
  await w.store.write((tx) => tx.update(organizations).set({ plan: "growth" }).where(eq(organizations.id, w.mspId)));
  expect((await w.t.json("GET", "/api/branding/public", onHost(HOST))).body.productName).toBe("dmarcwarden");
  const { mailOriginFor } = await import("../../src/features/branding/service");
  expect(await mailOriginFor(w.t.deps, w.clientId)).toBeNull();
});

test("mail for the MSP's organizations links to its hostname; a Host header never makes a link; cookies stay host-only", async () => {
  const w = await world({ mail: true });
  await put(w, HOST);
  const linkIn = (text: string) => /https?:\/\/[^\s"<>]+/.exec(text)?.[0] ?? "";

  // an invitation to the client, by the MSP's owner acting in it
  await w.t.json("POST", `/api/orgs/${w.clientId}/switch`, { cookie: w.ownerCookie });
  const invited = await w.t.json("POST", "/api/members/invitations", { cookie: w.ownerCookie, body: { email: "new.baker@example.test", role: "member" } });
  expect(invited.status).toBe(201);
  const invitation = await capture!.waitFor((m) => m.to.includes("new.baker@example.test"));
  expect(invitation.text).toContain(`https://${HOST}/invite?token=`);
  expect(invitation.text).not.toContain(PUBLIC_URL);

  // a password link for someone only in the MSP's world; asked for on any host
  expect((await w.t.json("POST", "/api/auth/password-link", { body: { email: "baker@example.test" }, headers: { host: "evil.example" } })).status).toBe(200);
  const reset = await capture!.waitFor((m) => m.to.includes("baker@example.test") && m.subject.length > 0 && m.text.includes("set-password"));
  expect(linkIn(reset.text)).toStartWith(`https://${HOST}/set-password?token=`);

  // someone who also belongs to another organization: --public-url, even when asked for on the MSP's host
  const elsewhere = await createOrg(w.store, "Unrelated Ltd");
  const both = await createUser(w.store, "both@example.test");
  await addMember(w.store, w.clientId, both, "member");
  await addMember(w.store, elsewhere, both, "member");
  await w.t.json("POST", "/api/auth/password-link", { body: { email: "both@example.test" }, headers: { host: HOST } });
  const neutral = await capture!.waitFor((m) => m.to.includes("both@example.test"));
  expect(linkIn(neutral.text)).toStartWith(`${PUBLIC_URL}/set-password?token=`);
  // and someone outside any MSP asking on a made-up host: --public-url, never that host
  const loner = await createUser(w.store, "loner@example.test");
  await addMember(w.store, elsewhere, loner, "owner");
  await w.t.json("POST", "/api/auth/password-link", { body: { email: "loner@example.test" }, headers: { host: "attacker.example" } });
  const lonerMail = await capture!.waitFor((m) => m.to.includes("loner@example.test"));
  expect(linkIn(lonerMail.text)).toStartWith(`${PUBLIC_URL}/set-password?token=`);
  expect(lonerMail.text).not.toContain("attacker.example");

  // an alert to the client's channel links to the MSP's hostname
  const channel = await w.t.json("POST", "/api/alerts/channels", { cookie: w.ownerCookie, body: { type: "email", name: "Ops", target: "ops@bakery.example" } });
  expect((await w.t.json("POST", `/api/alerts/channels/${channel.body.id}/test`, { cookie: w.ownerCookie })).body.ok).toBe(true);
  const alert = await capture!.waitFor((m) => m.to.includes("ops@bakery.example"));
  expect(alert.text).toContain(`https://${HOST}/`);
  expect(alert.text).not.toContain(PUBLIC_URL);

  // a session opened on the MSP's hostname is a host-only cookie
  const passwordHash = await Bun.password.hash("a long password 1", { algorithm: "argon2id" });
  await w.store.write((tx) => tx.update(w.store.t.users).set({ passwordHash }).where(eq(w.store.t.users.id, loner)));
  const login = await w.t.request("POST", "/api/auth/login", { body: { email: "loner@example.test", password: "a long password 1" }, headers: { host: HOST, origin: `https://${HOST}` } });
  expect(login.status).toBe(200);
  const cookies = login.headers.getSetCookie();
  expect(cookies.some((c) => c.startsWith("dw_session="))).toBe(true);
  for (const cookie of cookies) expect(cookie.toLowerCase()).not.toContain("domain=");
});
