/**
 * A session that ends while the browser is at the mailbox provider's consent page (Chromium,
 * built executable, local stand-in of Microsoft's endpoints): the provider's return lands on
 * the sign-in page with a notice instead of a JSON 401; after signing in the browser is back in
 * Settings › Report mail, told to connect again, and nothing was connected meanwhile.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { newPage } from "../support/browser";
import { shot, signUpViaApi, useServerAndBrowser } from "../support/e2e";
import { oauthMailArgs, startOAuthMailStandIn } from "../support/oauth-mail-standin";
import { OAUTH_CONNECT_RESULTS, OAUTH_SIGNED_OUT_MESSAGE } from "../../src/features/mailin/oauth-contract";

const standIn = startOAuthMailStandIn();
afterAll(() => standIn.close());
const ctx = useServerAndBrowser({ args: oauthMailArgs(standIn.url, ["microsoft"]) });

describe("OAuth2 report mailboxes, signed out on the way back", () => {
  test("the provider's return goes through the sign-in page back to Settings' report mail", async () => {
    const base = ctx.server.url;
    const { page, errors } = await newPage(ctx.browser);
    const account = await signUpViaApi(page, base, { organization: "Expired Session Ltd" });
    standIn.consentAs("microsoft", "late@oauth-e2e.example");

    await page.goto(base + "/app/settings");
    const section = page.getByRole("region", { name: "Report mail" });
    // the session ends while the browser is at the provider
    await page.route(`${standIn.url}/ms/authorize**`, async (route) => {
      await page.context().clearCookies({ name: "dw_session" });
      await route.continue();
    });
    await section.getByRole("button", { name: "Connect Microsoft 365" }).click();

    await page.getByRole("heading", { name: "Sign in" }).waitFor();
    expect(new URL(page.url()).pathname).toBe("/login");
    expect(await page.getByRole("status").textContent()).toBe(OAUTH_SIGNED_OUT_MESSAGE);
    await shot(page, "oauth-signed-out-login-1280");

    await page.getByLabel("Email").fill(account.email);
    await page.getByLabel("Password").fill(account.password);
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    await section.getByText(OAUTH_CONNECT_RESULTS.signed_out).waitFor();
    expect(new URL(page.url()).pathname).toBe("/app/settings");
    // the section is in view, and nothing was connected: the button to try again is there
    expect(await section.evaluate((el) => el.getBoundingClientRect().top < window.innerHeight)).toBe(true);
    await section.getByRole("button", { name: "Connect Microsoft 365" }).waitFor();
    expect((await (await page.request.get(base + "/api/settings/oauth-mailboxes")).json()).mailboxes).toEqual([]);
    if (process.env.SHOTS_DIR) await section.screenshot({ path: `${process.env.SHOTS_DIR}/oauth-signed-out-settings-1280.png` });
    expect(errors).toEqual([]);
  }, 120_000);
});
