/**
 * Invitation and password-link mail build their links as every other mail does (branding's
 * mailBaseFor / userMailBase): the organisation's (or the person's MSP's) verified hostname, else
 * --public-url — and a branding that cannot be read gives --public-url, so the invitation and the
 * password link still go out, as digests and alerts do, instead of the request failing (a
 * "forgot password" that failed only for existing accounts would also tell which exist).
 */
import { afterEach, expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import { createMailer } from "../../src/features/mail/mailer";
import { makeTestApp, type TestApp } from "../support/app";
import { addMember, createOrg, createUser, signIn } from "../support/fixtures";
import { startMailCapture, type MailCapture } from "../support/mail-capture";

const PUBLIC_URL = "https://dw.example.test";
let t: TestApp | null = null;
let capture: MailCapture | null = null;
afterEach(async () => {
  await t?.close();
  t = null;
  await capture?.stop();
  capture = null;
});

const linkIn = (text: string) => /https?:\/\/[^\s"<>]+/.exec(text)?.[0] ?? "";

test("with the branding unreadable, invitations and password links still go out, linking to --public-url", async () => {
  capture = await startMailCapture();
  const mailer = createMailer({ relay: { host: "127.0.0.1", port: capture.port, secure: false, auth: null }, from: "dmarcwarden <alerts@dw.example.test>", publicUrl: PUBLIC_URL });
  t = await makeTestApp({ config: { publicUrl: PUBLIC_URL }, deps: { mailer } });
  const { store } = t.deps;
  const mspId = await createOrg(store, "Acme MSP");
  const clientId = await createOrg(store, "Client Bakery", mspId);
  const owner = await createUser(store, "msp-owner@example.test", "Mia Owner");
  await addMember(store, mspId, owner, "owner");
  const baker = await createUser(store, "baker@example.test", "Ben Baker");
  await addMember(store, clientId, baker, "viewer");
  const cookie = await signIn(store, owner, mspId);

  // the branding table cannot be read (a damaged or half-restored database)
  await store.write(() => store.rows(sql.raw("DROP TABLE organization_branding")));

  const invited = await t.json("POST", "/api/members/invitations", { cookie, body: { email: "new.member@example.test", role: "member" } });
  expect(invited.status).toBe(201);
  expect(invited.body.emailed).toBe(true);
  const invitation = await capture.waitFor((m) => m.to.includes("new.member@example.test"));
  expect(linkIn(invitation.text)).toStartWith(`${PUBLIC_URL}/invite?token=`);

  const asked = await t.json("POST", "/api/auth/password-link", { body: { email: "baker@example.test" } });
  expect(asked.status).toBe(200);
  const reset = await capture.waitFor((m) => m.to.includes("baker@example.test") && m.text.includes("set-password"));
  expect(linkIn(reset.text)).toStartWith(`${PUBLIC_URL}/set-password?token=`);
});

test("without outgoing mail the invitation's link to copy starts with --public-url", async () => {
  t = await makeTestApp({ config: { publicUrl: PUBLIC_URL } });
  const { store } = t.deps;
  const orgId = await createOrg(store, "Solo Ltd");
  const owner = await createUser(store, "solo@example.test");
  await addMember(store, orgId, owner, "owner");
  const invited = await t.json("POST", "/api/members/invitations", { cookie: await signIn(store, owner, orgId), body: { email: "next@example.test", role: "viewer" } });
  expect(invited.status).toBe(201);
  expect(invited.body.emailed).toBe(false);
  expect(invited.body.link).toStartWith(`${PUBLIC_URL}/invite?token=`);
});
