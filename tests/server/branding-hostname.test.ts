/**
 * An MSP's custom hostname (issue 17, white-label): set in PUT /api/branding (validated, not the
 * deployment's own host, not one another organization holds verified) and pending until verified
 * (POST /api/branding/hostname/verify: a CNAME to --public-url's host, or only its addresses, and
 * the organization's own TXT proof record at _dmarcwarden-verify.<name>, asked of the test DNS
 * server through the server's resolver). Once verified, a request whose Host is that name gets the MSP's branding on
 * the signed-out pages; mail links for its organisations (invitations, password links, alerts,
 * digests) use https://<hostname>. A pending, failed or renamed hostname is used for nothing. The
 * Host header only selects among verified names: links are never built from it, and cookies stay
 * host-only.
 */
import { afterEach, expect, test } from "bun:test";
import { eq, sql } from "drizzle-orm";
import { auditLog, organizationBranding, organizations } from "../../src/db/schema";
import { recheckHostnames } from "../../src/features/branding/hostname-recheck";
import { HOSTNAME_IS_OWN, HOSTNAME_STATUS_MESSAGES, HOSTNAME_TAKEN, mailOriginFor, orgIdByHostname } from "../../src/features/branding/service";
import { buildDigest } from "../../src/features/digests/service";
import { createResolver } from "../../src/features/dns/resolver";
import { createMailer } from "../../src/features/mail/mailer";
import { makeTestApp, type TestApp } from "../support/app";
import { addMember, createOrg, createUser, markVerified, signIn } from "../support/fixtures";
import { startDnsServer, type TestDnsServer, type Zone } from "../support/dns-server";
import { startMailCapture, type MailCapture } from "../support/mail-capture";

let t: TestApp | null = null;
let capture: MailCapture | null = null;
let dns: TestDnsServer | null = null;
afterEach(async () => {
  t?.close();
  t = null;
  await capture?.stop();
  capture = null;
  await dns?.close();
  dns = null;
});

const HOST = "dmarc.msp-example.com";
const PUBLIC_URL = "https://dw.example.test";
const RECORD = `${HOST} CNAME dw.example.test.`;
/** the deployment's host and the MSP's name pointing at it */
const zone = (): Zone => ({ "dw.example.test": { A: ["192.0.2.10"], AAAA: ["2001:db8::10"] }, [HOST]: { CNAME: "dw.example.test" } });

async function world(options: { mail?: boolean; deps?: Record<string, unknown>; publicUrl?: string } = {}) {
  dns = await startDnsServer(zone());
  const resolver = createResolver({ servers: [{ host: dns.host, port: dns.port }], timeoutMs: 1000 });
  let mailer;
  if (options.mail) {
    capture = await startMailCapture();
    mailer = createMailer({ relay: { host: "127.0.0.1", port: capture.port, secure: false, auth: null }, from: "dmarcwarden <alerts@dw.example.test>", publicUrl: PUBLIC_URL });
  }
  t = await makeTestApp({ config: { publicUrl: options.publicUrl ?? PUBLIC_URL }, deps: { resolver, ...(mailer ? { mailer } : {}), ...options.deps } });
  const { store } = t.deps;
  const mspId = await createOrg(store, "Acme MSP");
  const clientId = await createOrg(store, "Client Bakery", mspId);
  const owner = await createUser(store, "msp-owner@example.test", "Mia Owner");
  // with mail on, only a proved address may invite
  if (mailer) await markVerified(store, owner);
  await addMember(store, mspId, owner, "owner");
  const baker = await createUser(store, "baker@example.test", "Ben Baker");
  await addMember(store, clientId, baker, "viewer");
  return { t, store, dns: dns!, mspId, clientId, owner, baker, ownerCookie: await signIn(store, owner, mspId) };
}

const put = (w: { t: TestApp; ownerCookie: string }, customHostname: string, cookie = w.ownerCookie) =>
  w.t.json("PUT", "/api/branding", { cookie, body: { productName: "Acme Mail Shield", primaryColor: "#ff6600", supportEmail: "help@acme.example", customHostname } });
const onHost = (host: string) => ({ headers: { host } });
const verify = (w: { t: TestApp; ownerCookie: string }, cookie = w.ownerCookie) => w.t.json("POST", "/api/branding/hostname/verify", { cookie });
/** publishes the organization's proof record for its stored hostname (as GET /api/branding shows it); answers the record */
async function publishProof(w: { t: TestApp; ownerCookie: string }, cookie = w.ownerCookie) {
  const proof = (await w.t.json("GET", "/api/branding", { cookie })).body.customHostnameProof;
  expect(`${proof.type} ${proof.name}`).toStartWith("TXT _dmarcwarden-verify.");
  const entry = (dns!.zone[proof.name] ??= {});
  entry.TXT = [...(entry.TXT ?? []), proof.value];
  return proof as { name: string; type: "TXT"; value: string };
}
/** sets the hostname, publishes its proof record and verifies it (the test DNS server has it as a CNAME to --public-url's host) */
async function putVerified(w: { t: TestApp; ownerCookie: string }, customHostname = HOST) {
  expect((await put(w, customHostname)).status).toBe(200);
  await publishProof(w);
  const verified = await verify(w);
  expect(verified.body.status).toBe("verified");
}

test("an MSP sets its hostname (normalized, audited); it is validated, not the server's own, and unique", async () => {
  const w = await world();
  const saved = await put(w, " Dmarc.MSP-Example.com. ");
  expect(saved.status).toBe(200);
  expect(saved.body.customHostname).toBe(HOST);
  expect(saved.body).toMatchObject({ customHostnameStatus: "pending", customHostnameCheckedAt: null, customHostnameRecord: RECORD });
  expect(saved.body.customHostnameMessage).toBe(HOSTNAME_STATUS_MESSAGES.pending);
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

  // verified, another MSP cannot take it, in any spelling
  await publishProof(w);
  expect((await verify(w)).body.status).toBe("verified");
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

test("signed out on the MSP's verified hostname: its name, logo and colour; any other host: the default", async () => {
  const w = await world();
  await putVerified(w);
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
  await putVerified(w);
  expect((await w.t.json("GET", "/api/branding/public", onHost(HOST))).body.productName).toBe("Acme Mail Shield");
  await w.store.write((tx) => tx.update(organizations).set({ plan: "growth" }).where(eq(organizations.id, w.mspId)));
  expect((await w.t.json("GET", "/api/branding/public", onHost(HOST))).body.productName).toBe("dmarcwarden");
  expect(await mailOriginFor(w.t.deps, w.clientId)).toBeNull();
});

test("mail for the MSP's organizations links to its verified hostname; a Host header never makes a link; cookies stay host-only", async () => {
  const w = await world({ mail: true });
  await putVerified(w);
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

test("a pending hostname brands nothing and changes no link; verified, it does; renamed, it is pending again", async () => {
  const w = await world({ mail: true });
  const linkIn = (text: string) => /https?:\/\/[^\s"<>]+/.exec(text)?.[0] ?? "";
  expect((await put(w, HOST)).body.customHostnameStatus).toBe("pending");
  // pending: the default on its host, no MSP found by it, --public-url in every link
  expect((await w.t.json("GET", "/api/branding/public", onHost(HOST))).body.productName).toBe("dmarcwarden");
  expect(await orgIdByHostname(w.t.deps, HOST)).toBeNull();
  expect(await mailOriginFor(w.t.deps, w.clientId)).toBeNull();
  await w.t.json("POST", "/api/auth/password-link", { body: { email: "baker@example.test" } });
  const pendingReset = await capture!.waitFor((m) => m.to.includes("baker@example.test") && m.text.includes("set-password"));
  expect(linkIn(pendingReset.text)).toStartWith(`${PUBLIC_URL}/set-password?token=`);
  expect((await buildDigest(w.t.deps, w.clientId, { includeClients: false })).link).toBe(`${PUBLIC_URL}/app/dashboard`);

  // verified through the server's resolver (the test DNS server): used everywhere
  await publishProof(w);
  const verified = await verify(w);
  expect(verified.status).toBe(200);
  expect(verified.body).toMatchObject({ customHostname: HOST, status: "verified" });
  expect(verified.body.message).toContain(`${HOST} is a CNAME to dw.example.test`);
  expect(new Date(verified.body.checkedAt).getTime()).toBeGreaterThan(0);
  expect(w.dns.questions).toContain(`CNAME ${HOST}`);
  const got = (await w.t.json("GET", "/api/branding", { cookie: w.ownerCookie })).body;
  expect(got).toMatchObject({ customHostnameStatus: "verified", customHostnameCheckedAt: verified.body.checkedAt });
  expect((await w.t.json("GET", "/api/branding/public", onHost(HOST))).body.productName).toBe("Acme Mail Shield");
  expect(await orgIdByHostname(w.t.deps, HOST)).toBe(w.mspId);
  expect(await mailOriginFor(w.t.deps, w.clientId)).toBe(`https://${HOST}`);
  expect((await buildDigest(w.t.deps, w.clientId, { includeClients: false })).link).toBe(`https://${HOST}/app/dashboard`);
  const audit = await w.store.db.select().from(auditLog).where(eq(auditLog.orgId, w.mspId));
  expect(audit.map((r) => JSON.parse(r.data!))).toContainEqual({ branding: { customHostnameStatus: "verified" } });

  // saving the branding with the same name keeps it verified; another name is pending and used for nothing
  expect((await put(w, HOST)).body.customHostnameStatus).toBe("verified");
  const renamed = await put(w, "portal.msp-example.com");
  expect(renamed.body).toMatchObject({ customHostname: "portal.msp-example.com", customHostnameStatus: "pending", customHostnameCheckedAt: null, customHostnameRecord: "portal.msp-example.com CNAME dw.example.test." });
  for (const host of [HOST, "portal.msp-example.com"]) expect((await w.t.json("GET", "/api/branding/public", onHost(host))).body.productName).toBe("dmarcwarden");
  expect(await mailOriginFor(w.t.deps, w.clientId)).toBeNull();
  // and back to the first name: pending again until verified again
  expect((await put(w, HOST)).body.customHostnameStatus).toBe("pending");
  expect(await mailOriginFor(w.t.deps, w.clientId)).toBeNull();
});

test("a hostname that does not point here fails with the record to publish; the same addresses verify it", async () => {
  const w = await world();
  const record = (name: string) => `${name} CNAME dw.example.test.`;
  const cases: [string, Zone[string] | undefined, string][] = [
    ["elsewhere.msp-example.com", { CNAME: "someone-else.example.net" }, "elsewhere.msp-example.com is a CNAME to someone-else.example.net, not to dw.example.test."],
    ["missing.msp-example.com", undefined, "missing.msp-example.com does not exist in DNS."],
    ["other-ip.msp-example.com", { A: ["198.51.100.7"] }, "other-ip.msp-example.com has the addresses 198.51.100.7, not this server's (192.0.2.10, 2001:db8::10)."],
    ["partly.msp-example.com", { A: ["192.0.2.10", "198.51.100.7"] }, "partly.msp-example.com has the addresses 192.0.2.10, 198.51.100.7, not this server's"],
  ];
  for (const [name, entry, found] of cases) {
    if (entry) w.dns.zone[name] = entry;
    expect((await put(w, name)).status).toBe(200);
    // a name that does not exist cannot hold a proof record below it either (that would make it exist)
    const proof = entry ? await publishProof(w) : null;
    const res = await verify(w);
    expect(`${name} ${res.status} ${res.body.status}`).toBe(`${name} 200 failed`);
    expect(res.body.message).toContain(found);
    if (proof) expect(res.body.message).toContain(`Publish this DNS record: ${record(name)}`);
    else expect(res.body.message).toContain(`Publish these DNS records: ${record(name)} and _dmarcwarden-verify.${name} TXT "dmarcwarden-verify=`);
    expect((await w.t.json("GET", "/api/branding", { cookie: w.ownerCookie })).body).toMatchObject({ customHostnameStatus: "failed", customHostnameCheckedAt: res.body.checkedAt });
    expect((await w.t.json("GET", "/api/branding/public", onHost(name))).body.productName).toBe("dmarcwarden");
    expect(await mailOriginFor(w.t.deps, w.clientId)).toBeNull();
  }
  // the MSP publishes the record the message named: verified
  w.dns.zone["elsewhere.msp-example.com"] = { CNAME: "dw.example.test" };
  expect((await put(w, "elsewhere.msp-example.com")).status).toBe(200);
  expect((await verify(w)).body.status).toBe("verified");
  // an A record to the deployment's own address verifies as well
  w.dns.zone["by-address.msp-example.com"] = { A: ["192.0.2.10"] };
  await put(w, "by-address.msp-example.com");
  await publishProof(w);
  const byAddress = await verify(w);
  expect(byAddress.body.status).toBe("verified");
  expect(byAddress.body.message).toContain("has this server's addresses (192.0.2.10)");
  expect(await mailOriginFor(w.t.deps, w.clientId)).toBe("https://by-address.msp-example.com");

  // nothing to verify without a hostname; members may not verify; a client's admin may not either
  await put(w, "");
  expect((await verify(w)).status).toBe(400);
  const member = await createUser(w.store, "member@example.test");
  await addMember(w.store, w.mspId, member, "member");
  expect((await verify(w, await signIn(w.store, member, w.mspId))).status).toBe(403);
  const clientAdmin = await createUser(w.store, "client-admin@example.test");
  await addMember(w.store, w.clientId, clientAdmin, "admin");
  expect((await verify(w, await signIn(w.store, clientAdmin, w.clientId))).status).toBe(403);
});

test("a --public-url that is an IP address or localhost cannot verify a hostname, and says why", async () => {
  for (const publicUrl of ["http://127.0.0.1:3000", "http://localhost:3000"]) {
    const w = await world({ publicUrl });
    const saved = await put(w, HOST);
    expect(saved.body.customHostnameRecord).toBeNull();
    expect(saved.body.customHostnameMessage).toContain("cannot be verified");
    const res = await verify(w);
    expect(res.body.status).toBe("failed");
    expect(res.body.message).toContain(`cannot be verified: this server's --public-url (${publicUrl}) is ${publicUrl.includes("localhost") ? "localhost" : "an IP address"}`);
    expect(await mailOriginFor(w.t.deps, w.clientId)).toBeNull();
    await t!.close();
    t = null;
    await dns!.close();
    dns = null;
  }
});

test("the daily re-check: a verified hostname that stops pointing here fails and stops being used", async () => {
  const w = await world();
  await putVerified(w);
  let clock = new Date(Date.now() + 3_600_000);
  const deps = { ...w.t.deps, now: () => clock };
  // checked within the day: not due
  expect(await recheckHostnames(deps)).toBe(0);
  clock = new Date(Date.now() + 25 * 3_600_000);
  expect(await recheckHostnames(deps)).toBe(1);
  expect((await w.t.json("GET", "/api/branding", { cookie: w.ownerCookie })).body.customHostnameStatus).toBe("verified");
  // the MSP moves its name elsewhere; a day later the re-check notices
  w.dns.zone[HOST] = { CNAME: "another-service.example.net" };
  clock = new Date(Date.now() + 50 * 3_600_000);
  expect(await recheckHostnames(deps)).toBe(1);
  const after = (await w.t.json("GET", "/api/branding", { cookie: w.ownerCookie })).body;
  expect(after.customHostnameStatus).toBe("failed");
  expect(after.customHostnameCheckedAt).toBe(new Date(Math.floor(clock.getTime() / 1000) * 1000).toISOString());
  expect((await w.t.json("GET", "/api/branding/public", onHost(HOST))).body.productName).toBe("dmarcwarden");
  expect(await mailOriginFor(w.t.deps, w.clientId)).toBeNull();
  expect(w.t.logs.join("\n")).toContain("custom_hostname_unverified");
  // failed names are not re-checked by the scheduler (the MSP verifies again after fixing DNS)
  clock = new Date(Date.now() + 80 * 3_600_000);
  expect(await recheckHostnames(deps)).toBe(0);
});

test("with the branding unreadable, invitations and password links still go out to --public-url, as digests and alerts do", async () => {
  const w = await world({ mail: true });
  await putVerified(w);
  const linkIn = (text: string) => /https?:\/\/[^\s"<>]+/.exec(text)?.[0] ?? "";
  // the branding table cannot be read (a damaged or half-restored database): mail links fall back, the request does not fail
  await w.store.write(() => w.store.rows(sql.raw("DROP TABLE organization_branding")));
  const invited = await w.t.json("POST", "/api/members/invitations", { cookie: w.ownerCookie, body: { email: "new.member@example.test", role: "member" } });
  expect(invited.status).toBe(201);
  expect(invited.body.emailed).toBe(true);
  expect(linkIn((await capture!.waitFor((m) => m.to.includes("new.member@example.test"))).text)).toStartWith(`${PUBLIC_URL}/invite?token=`);
  // a "forgot password" that failed only for existing accounts would also tell which exist
  expect((await w.t.json("POST", "/api/auth/password-link", { body: { email: "baker@example.test" } })).status).toBe(200);
  const reset = await capture!.waitFor((m) => m.to.includes("baker@example.test") && m.text.includes("set-password"));
  expect(linkIn(reset.text)).toStartWith(`${PUBLIC_URL}/set-password?token=`);
});

test("without outgoing mail, the invitation's link to copy starts with --public-url (the MSP's hostname once verified)", async () => {
  const w = await world();
  const copy = async (email: string) => (await w.t.json("POST", "/api/members/invitations", { cookie: w.ownerCookie, body: { email, role: "viewer" } })).body;
  expect(await copy("first@example.test")).toMatchObject({ emailed: false, link: expect.stringMatching(new RegExp(`^${PUBLIC_URL}/invite\\?token=`)) });
  await putVerified(w);
  expect((await copy("second@example.test")).link).toStartWith(`https://${HOST}/invite?token=`);
});

/** a second MSP with its own owner, signed in */
async function rivalMsp(w: { store: TestApp["deps"]["store"] }, name = "Rival MSP") {
  const orgId = await createOrg(w.store, name);
  const owner = await createUser(w.store, `owner@${name.toLowerCase().replace(/\W+/g, "")}.test`);
  await addMember(w.store, orgId, owner, "owner");
  return { orgId, cookie: await signIn(w.store, owner, orgId) };
}

test("a hostname that points here without the organization's own TXT proof record stays unverified, and says what to publish", async () => {
  const w = await world();
  const saved = await put(w, HOST);
  const proof = saved.body.customHostnameProof;
  expect(proof).toEqual({ name: `_dmarcwarden-verify.${HOST}`, type: "TXT", value: expect.stringMatching(/^dmarcwarden-verify=[A-Za-z0-9_-]{43}$/) });
  // the same record every time it is shown
  expect((await w.t.json("GET", "/api/branding", { cookie: w.ownerCookie })).body.customHostnameProof).toEqual(proof);

  // the CNAME alone (what every MSP's name has) does not verify it
  const bare = await verify(w);
  expect(bare.status).toBe(200);
  expect(bare.body.status).toBe("failed");
  expect(bare.body.message).toContain(`${proof.name} has no TXT record.`);
  expect(bare.body.message).toContain(`Publish this DNS record: ${proof.name} TXT "${proof.value}"`);
  expect(w.dns.questions).toContain(`TXT ${proof.name}`);
  expect(await orgIdByHostname(w.t.deps, HOST)).toBeNull();
  expect((await w.t.json("GET", "/api/branding/public", onHost(HOST))).body.productName).toBe("dmarcwarden");

  // another organization's value for the same name is not this one's proof
  const rival = await rivalMsp(w);
  expect((await put(w, HOST, rival.cookie)).status).toBe(200);
  const rivalProof = (await w.t.json("GET", "/api/branding", { cookie: rival.cookie })).body.customHostnameProof;
  expect(rivalProof.name).toBe(proof.name);
  expect(rivalProof.value).not.toBe(proof.value);
  w.dns.zone[proof.name] = { TXT: [rivalProof.value] };
  const wrong = await verify(w);
  expect(wrong.body.status).toBe("failed");
  expect(wrong.body.message).toContain("has no TXT record with this organization's value");

  // the organization's own record beside it: verified and used
  w.dns.zone[proof.name] = { TXT: ["some-other=verification", proof.value] };
  const ok = await verify(w);
  expect(ok.body.status).toBe("verified");
  expect(ok.body.message).toContain("holds this organization's proof record");
  expect(await orgIdByHostname(w.t.deps, HOST)).toBe(w.mspId);
});

test("a second organization cannot take a verified hostname; one that only typed it first does not block the one that proves it", async () => {
  const w = await world();
  // a rival MSP types the name first (it points here, as every MSP's name does)
  const rival = await rivalMsp(w);
  expect((await put(w, HOST, rival.cookie)).status).toBe(200);
  // the name's real owner can still set it, publish its proof and verify it
  expect((await put(w, HOST)).status).toBe(200);
  await publishProof(w);
  expect((await verify(w)).body.status).toBe("verified");

  // now the rival can neither verify it (even with its own record published too) nor set it again
  await publishProof(w, rival.cookie);
  const refused = await verify(w, rival.cookie);
  expect(refused.status).toBe(409);
  expect(refused.body.error.message).toBe(HOSTNAME_TAKEN);
  expect((await put(w, "portal.rival.example", rival.cookie)).status).toBe(200);
  const again = await put(w, HOST, rival.cookie);
  expect(again.status).toBe(409);
  expect(again.body.error).toMatchObject({ message: HOSTNAME_TAKEN, fields: { customHostname: HOSTNAME_TAKEN } });
  // the refusals changed nothing: the rival keeps its other name, the owner its verified one
  const rows = await w.store.db.select().from(organizationBranding);
  expect(rows.find((r) => r.orgId === rival.orgId)).toMatchObject({ customHostname: "portal.rival.example", customHostnameStatus: "pending" });
  expect(rows.find((r) => r.orgId === w.mspId)).toMatchObject({ customHostname: HOST, customHostnameStatus: "verified" });
  expect(await orgIdByHostname(w.t.deps, HOST)).toBe(w.mspId);
  expect((await w.t.json("GET", "/api/branding/public", onHost(HOST))).body.productName).toBe("Acme Mail Shield");
});

test("the daily re-check drops a verified name whose proof record is gone; then another organization can prove and use it", async () => {
  const w = await world();
  await putVerified(w);
  const proof = (await w.t.json("GET", "/api/branding", { cookie: w.ownerCookie })).body.customHostnameProof;
  const rival = await rivalMsp(w);
  expect((await put(w, HOST, rival.cookie)).status).toBe(409);

  // the name's DNS now belongs to the rival: the first MSP's record is removed (the CNAME still points here)
  delete w.dns.zone[proof.name];
  const clock = new Date(Date.now() + 25 * 3_600_000);
  expect(await recheckHostnames({ ...w.t.deps, now: () => clock })).toBe(1);
  const dropped = (await w.t.json("GET", "/api/branding", { cookie: w.ownerCookie })).body;
  expect(dropped).toMatchObject({ customHostname: HOST, customHostnameStatus: "failed" });
  expect(w.t.logs.join("\n")).toContain("custom_hostname_unverified");
  expect(await orgIdByHostname(w.t.deps, HOST)).toBeNull();
  expect(await mailOriginFor(w.t.deps, w.clientId)).toBeNull();

  expect((await put(w, HOST, rival.cookie)).status).toBe(200);
  await publishProof(w, rival.cookie);
  expect((await verify(w, rival.cookie)).body.status).toBe("verified");
  expect(await orgIdByHostname(w.t.deps, HOST)).toBe(rival.orgId);
  // and the first MSP, without its record, cannot take it back
  expect((await verify(w)).status).toBe(409);
});
