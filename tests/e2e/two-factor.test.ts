/**
 * Two-factor sign-in and API tokens in Chromium against the built executable: an owner turns on
 * two-factor sign-in in Settings (QR code, secret, a code computed here from the secret, recovery
 * codes), signs out, signs in with the password and then a code, and again with a recovery code;
 * creates an API token, uses it with curl's header from outside the browser, and revokes it.
 * With DW_SHOTS=<dir> the screens are saved at 1280 and 375 px.
 */
import { describe, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import { base32Decode, totp } from "../../src/lib/totp";
import { newPage } from "../support/browser";
import { signUpViaApi, useServerAndBrowser } from "../support/e2e";

const ctx = useServerAndBrowser();
const SHOTS = process.env.DW_SHOTS;
const shot = async (page: Page, name: string) => {
  if (SHOTS) await page.screenshot({ path: `${SHOTS}/${name}.png`, fullPage: true });
};

/** A code the server has not seen yet: the next 30-second step (it accepts one step either side). */
const nextCode = (secret: string) => totp(base32Decode(secret)!, new Date(Date.now() + 30_000));

async function signInWithPassword(page: Page, base: string, email: string, password: string) {
  await page.goto(base + "/login");
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
  await page.getByRole("heading", { name: "Two-factor sign-in" }).waitFor();
}

describe("two-factor sign-in", () => {
  test("enroll in Settings, then sign in with a code from the app, and with a recovery code", async () => {
    const base = ctx.server.url;
    const { page, errors } = await newPage(ctx.browser);
    const account = await signUpViaApi(page, base);

    await page.goto(base + "/app/settings");
    const section = page.getByRole("region", { name: "Two-factor sign-in" });
    await section.getByRole("button", { name: "Turn on two-factor sign-in" }).click();
    await section.getByRole("img", { name: "QR code for your authenticator app" }).waitFor();
    const secret = (await section.getByTestId("totp-secret").textContent())!.replace(/\s/g, "");
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    await section.scrollIntoViewIfNeeded();
    await shot(page, "2fa-setup-1280");

    await section.getByLabel("Code from your app").fill("000000");
    await section.getByRole("button", { name: "Confirm" }).click();
    await section.getByRole("alert").getByText(/That code is not right/).waitFor();
    await section.getByLabel("Code from your app").fill(await totp(base32Decode(secret)!, new Date()));
    await section.getByRole("button", { name: "Confirm" }).click();
    const codes = page.getByRole("list", { name: "Recovery codes" }).getByRole("listitem");
    await codes.first().waitFor();
    expect(await codes.count()).toBe(10);
    const recoveryCodes = await codes.allTextContents();
    await shot(page, "2fa-recovery-codes-1280");
    await page.setViewportSize({ width: 375, height: 800 });
    await shot(page, "2fa-recovery-codes-375");
    await page.setViewportSize({ width: 1280, height: 900 });
    await section.getByRole("button", { name: "I have saved them" }).click();
    await section.getByText("On", { exact: true }).waitFor();

    // signed out: the password alone leads to the code step, not into the app
    await page.request.post(base + "/api/auth/logout", { headers: { origin: base } });
    await signInWithPassword(page, base, account.email, account.password);
    expect((await page.request.get(base + "/api/auth/me")).status()).toBe(401);
    await shot(page, "2fa-login-code-1280");
    await page.setViewportSize({ width: 375, height: 800 });
    await shot(page, "2fa-login-code-375");
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.getByLabel("Authentication code").fill(await nextCode(secret));
    await page.getByRole("button", { name: "Verify" }).click();
    await page.waitForURL(base + "/app/dashboard");
    expect((await page.request.get(base + "/api/auth/me")).status()).toBe(200);

    // a recovery code instead of the app
    await page.request.post(base + "/api/auth/logout", { headers: { origin: base } });
    await signInWithPassword(page, base, account.email, account.password);
    await page.getByRole("button", { name: "Lost your phone? Use a recovery code" }).click();
    await page.getByLabel("Recovery code").fill(recoveryCodes[0]!);
    await page.getByRole("button", { name: "Verify" }).click();
    await page.waitForURL(base + "/app/dashboard");
    expect(errors).toEqual([]);
    await page.context().close();
  }, 60_000);

  test("an admin creates an API token in Settings, a script uses it as a Bearer token, and it is revoked", async () => {
    const base = ctx.server.url;
    const { page, errors } = await newPage(ctx.browser);
    await signUpViaApi(page, base);
    await page.goto(base + "/app/settings");
    const section = page.getByRole("region", { name: "API tokens" });
    await section.getByLabel("Name").fill("Nightly export");
    await section.getByLabel("Role").selectOption("viewer");
    await section.getByRole("button", { name: "Create token" }).click();
    const token = (await section.getByTestId("new-token").textContent())!;
    expect(token).toMatch(/^dwt_/);
    await section.getByRole("list", { name: "API tokens" }).getByText("Nightly export").waitFor();
    await section.scrollIntoViewIfNeeded();
    await shot(page, "tokens-1280");
    await page.setViewportSize({ width: 375, height: 800 });
    await shot(page, "tokens-375");
    await page.setViewportSize({ width: 1280, height: 900 });

    // outside the browser, no cookie: what `curl -H "Authorization: Bearer …"` does
    const used = await fetch(base + "/api/domains", { headers: { authorization: `Bearer ${token}` } });
    expect(used.status).toBe(200);
    await section.getByRole("button", { name: "Done" }).click();
    await page.reload();
    await page.getByRole("region", { name: "API tokens" }).getByText(/last used/).waitFor();

    page.once("dialog", (d) => d.accept());
    await page.getByRole("button", { name: "Revoke Nightly export" }).click();
    await page.getByRole("region", { name: "API tokens" }).getByText("No API tokens yet.").waitFor();
    expect((await fetch(base + "/api/domains", { headers: { authorization: `Bearer ${token}` } })).status).toBe(401);
    expect(errors).toEqual([]);
    await page.context().close();
  }, 60_000);
});
