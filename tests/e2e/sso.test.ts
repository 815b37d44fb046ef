/**
 * Single sign-on in Chromium against the built executable and a real OpenID provider
 * (`oidc-provider` on 127.0.0.1, its own sign-in page): an owner sets up single sign-on in
 * Settings and proves its email domains (their TXT records published on a local DNS server, then
 * Check now); a new person signs in with "Sign in with SSO" through the provider's page and lands
 * in the app as a member; an address outside the allowed domains comes back to the sign-in page
 * with the reason. Then the forced enrolment: once the owner requires two-factor sign-in, a
 * member without it who signs in (with a password) is sent to /app/two-factor before anything
 * else, and gets into the app after turning it on.
 * With SHOTS_DIR=<dir> the screens are saved at 1280 and 375 px.
 */
import { beforeAll, afterAll, describe, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import { base32Decode, totp } from "../../src/lib/totp";
import { newPage } from "../support/browser";
import { noOverflow, shot, signUpViaApi, useServerAndBrowser } from "../support/e2e";
import { startDnsServer, type TestDnsServer } from "../support/dns-server";
import { startOidcProvider, type TestOidcProvider } from "../support/oidc-provider";

// the DNS server the app asks for the domains' proof records, started before the app (its address is a flag)
let dns: TestDnsServer;
beforeAll(async () => {
  dns = await startDnsServer({});
});
afterAll(() => dns?.close());
const ctx = useServerAndBrowser({ args: () => ["--allow-insecure-oidc", "--dns-server", dns.address] });
const CLIENT = { clientId: "dmarcwarden-e2e", clientSecret: "e2e-client-secret-7c1f2a" };
const DOMAIN = "sso-e2e.example";
let idp: TestOidcProvider;

beforeAll(async () => {
  // registered after the server's hook, so its address (the redirect URI's origin) is known
  idp = await startOidcProvider({ clients: [{ ...CLIENT, redirectUris: [`${ctx.server.url}/api/auth/sso/callback`] }] });
});
afterAll(() => idp?.close());

const PASSWORD = "e2e owner password 1";

/** "Sign in with SSO" from the sign-in page with `identifier`, then the provider's page as `login`. */
async function signInWithSso(page: Page, base: string, identifier: string, login: string) {
  await page.goto(base + "/login");
  await page.getByRole("button", { name: "Sign in with SSO" }).click();
  await page.getByRole("heading", { name: "Sign in with SSO" }).waitFor();
  await page.getByLabel("Work email or organization short name").fill(identifier);
  await page.getByRole("button", { name: "Continue" }).click();
  // the provider's own sign-in page
  await page.waitForURL((url) => url.origin === idp.origin);
  await page.locator('input[name="login"]').fill(login);
  await page.locator('input[name="password"]').fill("any password");
  await page.locator('button[type="submit"]').click();
}

describe("single sign-on", () => {
  test("an owner sets it up in Settings; a new person signs in through the provider as a member; another domain is refused with the reason", async () => {
    const base = ctx.server.url;
    const { page, errors } = await newPage(ctx.browser);
    await signUpViaApi(page, base, { organization: "SSO Works" });

    await page.goto(base + "/app/settings");
    const section = page.getByRole("region", { name: "Single sign-on" });
    await section.getByTestId("sso-redirect-uri").waitFor();
    expect(await section.getByTestId("sso-redirect-uri").textContent()).toBe(`${base}/api/auth/sso/callback`);
    await section.getByLabel("Issuer URL").fill(idp.issuer);
    await section.getByLabel("Client ID").fill(CLIENT.clientId);
    await section.getByLabel("Client secret").fill(CLIENT.clientSecret);
    await section.getByLabel("Allowed email domains").fill(`${DOMAIN}, labs.${DOMAIN}`);
    await section.getByLabel("Role for new users").selectOption("member");
    await section.getByRole("button", { name: "Save single sign-on" }).click();
    await section.getByText("A secret is stored. Leave this empty to keep it.").waitFor();
    expect(await section.getByLabel("Client secret").inputValue()).toBe("");
    // the secret never comes back to the browser
    const settings = await (await page.request.get(base + "/api/sso")).text();
    expect(settings).not.toContain(CLIENT.clientSecret);
    const slug = JSON.parse(settings).organizationSlug as string;
    // both domains pending until their TXT records are published and checked
    const domains = JSON.parse(settings).connection.domains as { domain: string; status: string; record: { name: string; value: string } }[];
    expect(domains.map((d) => d.status)).toEqual(["pending", "pending"]);
    await section.getByTestId(`sso-proof-${DOMAIN}-value`).waitFor();
    expect(await section.getByTestId(`sso-proof-${DOMAIN}-value`).textContent()).toBe(domains[0]!.record.value);
    for (const { record } of domains) dns.zone[record.name] = { TXT: [record.value] };
    await section.getByRole("button", { name: "Check now" }).click();
    await section.getByText("Every allowed domain is proved.", { exact: false }).waitFor();
    await section.scrollIntoViewIfNeeded();
    await shot(page, "sso-settings-1280");
    if (process.env.SHOTS_DIR) await section.screenshot({ path: `${process.env.SHOTS_DIR}/sso-section-1280.png` });
    await page.setViewportSize({ width: 375, height: 800 });
    expect(await noOverflow(page)).toBeLessThanOrEqual(0);
    await shot(page, "sso-settings-375");
    if (process.env.SHOTS_DIR) await section.screenshot({ path: `${process.env.SHOTS_DIR}/sso-section-375.png` });
    await page.setViewportSize({ width: 1280, height: 900 });

    // a new person, in another browser context
    const newcomer = await newPage(ctx.browser);
    await newcomer.page.goto(base + "/login");
    await newcomer.page.getByRole("button", { name: "Sign in with SSO" }).waitFor();
    await shot(newcomer.page, "sso-login-1280");
    await signInWithSso(newcomer.page, base, `ada@${DOMAIN}`, `ada@${DOMAIN}`);
    await newcomer.page.waitForURL((url) => url.origin === base && url.pathname.startsWith("/app"));
    const me = await (await newcomer.page.request.get(base + "/api/auth/me")).json();
    expect(me.user.email).toBe(`ada@${DOMAIN}`);
    expect(me.currentOrg).toMatchObject({ name: "SSO Works", role: "member" });
    await newcomer.page.getByRole("heading", { level: 1 }).first().waitFor();
    await shot(newcomer.page, "sso-signed-in-1280");

    // an address the organisation does not allow: back on the sign-in page with the reason, not signed in
    const outsider = await newPage(ctx.browser, { width: 375, height: 800 });
    await signInWithSso(outsider.page, base, slug, "eve@elsewhere.example");
    await outsider.page.waitForURL(`${base}/login?sso_error=domain_not_allowed`);
    await outsider.page.getByRole("alert").getByText("Your email domain is not allowed to sign in to this organization with single sign-on.", { exact: false }).waitFor();
    expect((await outsider.page.request.get(base + "/api/auth/me")).status()).toBe(401);
    expect(await noOverflow(outsider.page)).toBeLessThanOrEqual(0);
    await shot(outsider.page, "sso-refused-375");

    // the owner sees both in the audit log
    const audit = await (await page.request.get(base + "/api/audit")).json();
    const actions = audit.entries.map((e: { action: string }) => e.action);
    expect(actions).toContain("sso.configured");
    expect(actions).toContain("auth.sign_in_failed");
    expect(JSON.stringify(audit)).not.toContain(CLIENT.clientSecret);
    expect([...errors, ...newcomer.errors, ...outsider.errors]).toEqual([]);
  });
});

describe("an organization that requires two-factor sign-in", () => {
  test("a member without it is sent to turn it on before anything else, then gets into the app", async () => {
    const base = ctx.server.url;
    const { page: owner, errors } = await newPage(ctx.browser);
    await signUpViaApi(owner, base, { organization: "Strict Org" });
    const headers = { origin: base };
    // the owner turns on two-factor sign-in and requires it
    const setup = await (await owner.request.post(base + "/api/auth/2fa/setup", { headers })).json();
    expect((await owner.request.post(base + "/api/auth/2fa/enable", { headers, data: { code: await totp(base32Decode(setup.secret)!, new Date()) } })).status()).toBe(200);
    expect((await owner.request.put(base + "/api/settings/two-factor", { headers, data: { required: true } })).status()).toBe(200);
    const invited = await (await owner.request.post(base + "/api/members/invitations", { headers, data: { email: `member-${Date.now()}@strict.example`, role: "member" } })).json();
    const token = new URL(invited.link).searchParams.get("token");

    // the member signs up, accepts, and signs in with the password
    const { page, errors: memberErrors } = await newPage(ctx.browser);
    const member = await signUpViaApi(page, base, { email: invited.invitation.email, organization: "Member's Own" });
    expect((await page.request.post(base + "/api/invitations/accept", { headers, data: { token } })).status()).toBe(200);
    await page.request.post(base + "/api/auth/logout", { headers });
    await page.goto(base + "/login");
    await page.getByLabel("Email").fill(member.email);
    await page.getByLabel("Password").fill(PASSWORD);
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    await page.waitForURL(base + "/app/dashboard");
    // still in the invited organisation? switch to it, as the session starts in the member's first
    const me = await (await page.request.get(base + "/api/auth/me")).json();
    const strict = me.organizations.find((o: { name: string }) => o.name === "Strict Org");
    if (me.currentOrg.id !== strict.id) {
      expect((await page.request.post(`${base}/api/orgs/${strict.id}/switch`, { headers })).status()).toBe(200);
    }
    // any screen of the app sends them to enrol first
    for (const path of ["/app/dashboard", "/app/domains", "/app/settings"]) {
      await page.goto(base + path);
      await page.waitForURL(base + "/app/two-factor");
    }
    await page.getByRole("status").getByText("Strict Org requires two-factor sign-in. Turn it on to continue.").waitFor();
    expect((await page.request.get(base + "/api/domains")).status()).toBe(403);
    await shot(page, "2fa-required-enroll-1280");

    // enrolling lets them in
    const section = page.getByRole("region", { name: "Two-factor sign-in" });
    await section.getByRole("button", { name: "Turn on two-factor sign-in" }).click();
    const secret = (await section.getByTestId("totp-secret").textContent())!.replace(/\s/g, "");
    await section.getByLabel("Code from your app").fill(await totp(base32Decode(secret)!, new Date()));
    await section.getByRole("button", { name: "Confirm" }).click();
    await page.getByRole("list", { name: "Recovery codes" }).waitFor();
    expect((await page.request.get(base + "/api/domains")).status()).toBe(200);
    await page.goto(base + "/app/domains");
    await page.getByRole("heading", { name: "Domain Management" }).waitFor();
    expect(new URL(page.url()).pathname).toBe("/app/domains");
    expect([...errors, ...memberErrors]).toEqual([]);
  });
});
