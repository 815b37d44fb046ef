/**
 * White-label branding (issue 17): an MSP sets product name, colour, support email and logo;
 * its clients see them (GET /api/branding, the sign-in page through the MSP's link); the plan
 * rule (Scale, or billing off); validation; audit entries.
 */
import { afterEach, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { auditLog, organizations } from "../../src/db/schema";
import { makeTestApp, type TestApp } from "../support/app";
import { addMember, createOrg, createUser, signIn } from "../support/fixtures";

let t: TestApp | null = null;
afterEach(() => t?.close());

// a 1×1 PNG
const PNG = Uint8Array.from(Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==", "base64"));

async function world(deps: Record<string, unknown> = {}) {
  t = await makeTestApp({ deps });
  const { store } = t.deps;
  const mspId = await createOrg(store, "Acme MSP");
  const clientId = await createOrg(store, "Client Bakery", mspId);
  const owner = await createUser(store, "msp-owner@example.test", "Mia Owner");
  await addMember(store, mspId, owner, "owner");
  const clientUser = await createUser(store, "baker@example.test", "Ben Baker");
  await addMember(store, clientId, clientUser, "viewer");
  const [msp] = await store.db.select().from(organizations).where(eq(organizations.id, mspId));
  return { t, mspId, clientId, mspSlug: msp!.slug, owner: await signIn(store, owner, mspId), client: await signIn(store, clientUser, clientId) };
}

function logoForm(bytes: Uint8Array<ArrayBuffer>, name = "logo.png") {
  const form = new FormData();
  form.append("logo", new File([bytes], name, { type: "image/png" }));
  return form;
}

test("an MSP's branding reaches its client's users, its public sign-in link and its logo", async () => {
  const w = await world();
  const before = await w.t.json("GET", "/api/branding", { cookie: w.client });
  expect(before.body).toMatchObject({ productName: "dmarcwarden", primaryColor: null, logoUrl: null, source: "default", canEdit: false, isClient: true });

  const put = await w.t.json("PUT", "/api/branding", { cookie: w.owner, body: { productName: "Acme Mail Shield", primaryColor: "#FF6600", supportEmail: "help@acme.example" } });
  expect(put.status).toBe(200);
  expect(put.body).toMatchObject({ productName: "Acme Mail Shield", primaryColor: "#ff6600", supportEmail: "help@acme.example", source: "own", canEdit: true });

  const logo = await w.t.json("PUT", "/api/branding/logo", { cookie: w.owner, body: logoForm(PNG) });
  expect(logo.status).toBe(200);
  expect(logo.body.logoUrl).toStartWith(`/api/branding/${w.mspSlug}/logo`);

  const seen = await w.t.json("GET", "/api/branding", { cookie: w.client });
  expect(seen.body).toMatchObject({ productName: "Acme Mail Shield", primaryColor: "#ff6600", supportEmail: "help@acme.example", source: "parent", own: null, canEdit: false });

  const served = await w.t.request("GET", seen.body.logoUrl);
  expect(served.status).toBe(200);
  expect(served.headers.get("content-type")).toBe("image/png");
  expect(served.headers.get("x-content-type-options")).toBe("nosniff");
  expect(new Uint8Array(await served.arrayBuffer())).toEqual(PNG);

  const pub = await w.t.json("GET", `/api/branding/public?brand=${w.mspSlug}`);
  expect(pub.status).toBe(200);
  expect(pub.body).toEqual({ productName: "Acme Mail Shield", primaryColor: "#ff6600", logoUrl: seen.body.logoUrl });
  // an unknown link: the product's own sign-in page
  expect((await w.t.json("GET", "/api/branding/public?brand=nobody-here")).body).toEqual({ productName: "dmarcwarden", primaryColor: null, logoUrl: null });

  // the client cannot change it
  expect((await w.t.json("PUT", "/api/branding", { cookie: w.client, body: { productName: "Mine", primaryColor: "", supportEmail: "" } })).status).toBe(403);

  // removing the logo
  const del = await w.t.json("DELETE", "/api/branding/logo", { cookie: w.owner });
  expect(del.body.logoUrl).toBeNull();
  expect((await w.t.request("GET", `/api/branding/${w.mspSlug}/logo`)).status).toBe(404);
});

test("values are validated and the logo must be a small PNG or JPEG", async () => {
  const w = await world();
  const bad = await w.t.json("PUT", "/api/branding", { cookie: w.owner, body: { productName: "<script>", primaryColor: "red", supportEmail: "nope" } });
  expect(bad.status).toBe(400);
  expect(Object.keys(bad.body.error.fields).sort()).toEqual(["primaryColor", "productName", "supportEmail"]);

  const svg = new TextEncoder().encode('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>');
  const refused = await w.t.json("PUT", "/api/branding/logo", { cookie: w.owner, body: logoForm(svg, "logo.svg") });
  expect(refused.status).toBe(400);
  expect(refused.body.error.message).toContain("PNG or JPEG");

  const big = new Uint8Array(300 * 1024);
  big.set(PNG.subarray(0, 8));
  const tooBig = await w.t.json("PUT", "/api/branding/logo", { cookie: w.owner, body: logoForm(big) });
  expect(tooBig.status).toBe(413);
  expect((await w.t.json("GET", "/api/branding", { cookie: w.owner })).body.logoUrl).toBeNull();
});

test("with billing on, white-label needs the Scale plan; below it clients see the product's own branding", async () => {
  const w = await world({ stripe: {} });
  const { store } = w.t.deps;
  await store.write((tx) => tx.update(organizations).set({ plan: "growth", planStatus: "active" }).where(eq(organizations.id, w.mspId)));
  const refused = await w.t.json("PUT", "/api/branding", { cookie: w.owner, body: { productName: "Acme Mail Shield", primaryColor: "", supportEmail: "" } });
  expect(refused.status).toBe(403);
  expect(refused.body.error.message).toContain("Scale plan");
  expect((await w.t.json("GET", "/api/branding", { cookie: w.owner })).body).toMatchObject({ planAllows: false, canEdit: false });

  await store.write((tx) => tx.update(organizations).set({ plan: "scale" }).where(eq(organizations.id, w.mspId)));
  expect((await w.t.json("PUT", "/api/branding", { cookie: w.owner, body: { productName: "Acme Mail Shield", primaryColor: "", supportEmail: "" } })).status).toBe(200);
  expect((await w.t.json("GET", "/api/branding", { cookie: w.client })).body.productName).toBe("Acme Mail Shield");

  // back down to Growth: the branding stays stored but is no longer shown
  await store.write((tx) => tx.update(organizations).set({ plan: "growth" }).where(eq(organizations.id, w.mspId)));
  expect((await w.t.json("GET", "/api/branding", { cookie: w.client })).body).toMatchObject({ productName: "dmarcwarden", source: "default" });
  expect((await w.t.json("GET", `/api/branding/public?brand=${w.mspSlug}`)).body.productName).toBe("dmarcwarden");
});

test("changes are recorded in the audit log as settings changed", async () => {
  const w = await world();
  await w.t.json("PUT", "/api/branding", { cookie: w.owner, body: { productName: "Acme Mail Shield", primaryColor: "#123456", supportEmail: "" } });
  await w.t.json("PUT", "/api/branding/logo", { cookie: w.owner, body: logoForm(PNG) });
  const rows = await w.t.deps.store.db.select().from(auditLog).where(eq(auditLog.orgId, w.mspId));
  const data = rows.filter((r) => r.action === "settings.changed").map((r) => JSON.parse(r.data!));
  expect(data).toContainEqual({ branding: { productName: "Acme Mail Shield", primaryColor: "#123456" } });
  expect(data).toContainEqual({ branding: { logo: "uploaded" } });
});

test("alert and digest mail to a client carry its MSP's name, colour and support address; others keep the product's", async () => {
  const { startMailCapture } = await import("../support/mail-capture");
  const { createMailer } = await import("../../src/features/mail/mailer");
  const { sendDigest } = await import("../../src/features/digests/schedule");
  const capture = await startMailCapture();
  try {
    const mailer = createMailer({ relay: { host: "127.0.0.1", port: capture.port, secure: false, auth: null }, from: "dmarcwarden <alerts@dw.example.test>", publicUrl: "https://dw.example.test" });
    const w = await world({ mailer });
    const { store } = w.t.deps;
    const clientAdmin = await createUser(store, "bakery-admin@example.test", "Bea Admin");
    await addMember(store, w.clientId, clientAdmin, "admin");
    const adminCookie = await signIn(store, clientAdmin, w.clientId);
    await w.t.json("PUT", "/api/branding", { cookie: w.owner, body: { productName: "Acme Mail Shield", primaryColor: "#ff6600", supportEmail: "help@acme.example" } });

    const channel = await w.t.json("POST", "/api/alerts/channels", { cookie: adminCookie, body: { type: "email", name: "Ops", target: "ops@bakery.example" } });
    expect(channel.status).toBe(201);
    const sent = await w.t.json("POST", `/api/alerts/channels/${channel.body.id}/test`, { cookie: adminCookie });
    expect(sent.body.ok).toBe(true);
    const alert = await capture.waitFor((m) => m.to.includes("ops@bakery.example"));
    expect(alert.text).toContain("— Acme Mail Shield");
    expect(alert.text).toContain("Questions? Write to help@acme.example.");
    expect(alert.text).not.toContain("dmarcwarden");
    expect(alert.html).toContain("background:#ff6600");
    expect(alert.html).toContain("Sent by Acme Mail Shield");

    await sendDigest({ ...w.t.deps, mailer }, w.clientId, { to: ["digest@bakery.example"] });
    const digest = await capture.waitFor((m) => m.to.includes("digest@bakery.example"));
    expect(digest.text).toContain("— Acme Mail Shield");
    expect(digest.html).toContain("Sent by Acme Mail Shield");

    // the MSP's neighbour without branding: the product's own mail
    const other = await createOrg(store, "Plain Org");
    await sendDigest({ ...w.t.deps, mailer }, other, { to: ["plain@other.example"] });
    const plain = await capture.waitFor((m) => m.to.includes("plain@other.example"));
    expect(plain.text).toContain("— dmarcwarden");
    expect(plain.text).not.toContain("Acme");
  } finally {
    await capture.stop();
  }
});

test("a command without a Stripe client still applies the plan rule when billing is configured", async () => {
  const { brandingFor } = await import("../../src/features/branding/service");
  const w = await world();
  const { store } = w.t.deps;
  await w.t.json("PUT", "/api/branding", { cookie: w.owner, body: { productName: "Acme Mail Shield", primaryColor: "", supportEmail: "" } });
  expect((await brandingFor({ store }, w.clientId)).productName).toBe("Acme Mail Shield");
  // billing on (a secret key), MSP on Growth: the product's own name on the client's digest PDF
  await store.write((tx) => tx.update(organizations).set({ plan: "growth" }).where(eq(organizations.id, w.mspId)));
  expect(await brandingFor({ store, config: { stripeSecretKey: "sk_test_x" } }, w.clientId)).toMatchObject({ productName: "dmarcwarden", source: "default" });
  await store.write((tx) => tx.update(organizations).set({ plan: "scale" }).where(eq(organizations.id, w.mspId)));
  expect((await brandingFor({ store, config: { stripeSecretKey: "sk_test_x" } }, w.clientId)).source).toBe("parent");
});
