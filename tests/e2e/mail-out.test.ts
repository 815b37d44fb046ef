/**
 * Outgoing mail end to end: the built executable sends through --mail-relay to a local SMTP
 * capture server (tests/support/mail-capture.ts), and Chromium follows the links in the mail.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { newPage } from "../support/browser";
import { signUpViaApi, useServerAndBrowser } from "../support/e2e";
import { linkIn, startMailCapture, type MailCapture } from "../support/mail-capture";

const RELAY_PASS = "e2e-relay-secret";
let capture: MailCapture;
beforeAll(async () => {
  capture = await startMailCapture();
});
afterAll(() => capture?.stop());

const ctx = useServerAndBrowser({
  args: () => ["--mail-relay", capture.url({ user: "e2e-relay", pass: RELAY_PASS }), "--mail-from", "dmarcwarden <alerts@e2e.example>", "--public-url", "http://127.0.0.1:{port}"],
});

describe("outgoing mail", () => {
  test("forgot password on /login → link from the mail → /set-password → signed in on the dashboard", async () => {
    const { page: setup } = await newPage(ctx.browser);
    const account = await signUpViaApi(setup, ctx.server.url, {}, capture);
    await setup.context().close();

    const { page, errors } = await newPage(ctx.browser);
    await page.goto(ctx.server.url + "/login");
    await page.getByLabel("Email").fill(account.email);
    await page.getByRole("button", { name: "Forgot password?" }).click();
    await page.getByRole("heading", { name: "Reset your password" }).waitFor();
    expect(await page.getByLabel("Email").inputValue()).toBe(account.email);
    await page.getByRole("button", { name: "Send link" }).click();
    await page.getByRole("heading", { name: "Check your inbox" }).waitFor();

    const mail = await capture.waitFor((m) => m.to.includes(account.email) && m.subject === "Set a new password for dmarcwarden");
    expect(mail.authUser).toBe("e2e-relay");
    const link = linkIn(mail, `${ctx.server.url}/set-password?token=`);
    await page.goto(link);
    await page.getByText(account.email, { exact: true }).waitFor();
    await page.getByLabel(/^New password/).fill("a fresh e2e password");
    await page.getByLabel(/^Repeat the new password/).fill("a fresh e2e password");
    await page.getByRole("button", { name: "Set password and sign in" }).click();
    await page.waitForURL(ctx.server.url + "/app/dashboard");
    await page.getByTestId("toast").getByText("Password set", { exact: true }).waitFor();

    // the link is used up; the new password signs in
    await page.goto(link);
    await page.getByRole("heading", { name: "This link does not work" }).waitFor();
    const login = await page.request.post(ctx.server.url + "/api/auth/login", { data: { email: account.email, password: "a fresh e2e password" }, headers: { origin: ctx.server.url } });
    expect(login.status()).toBe(200);
    expect(errors).toEqual([]);
    expect(ctx.server.output()).not.toContain(RELAY_PASS);
    await page.context().close();
  });

  test("an invitation from Settings is mailed, and the UI says so instead of showing the link", async () => {
    const { page, errors } = await newPage(ctx.browser);
    await signUpViaApi(page, ctx.server.url, { organization: "Mailed Invites Ltd" }, capture);
    await page.goto(ctx.server.url + "/app/settings");
    const invited = `invitee-${Date.now()}@e2e.example`;
    await page.getByLabel("Email to invite").fill(invited);
    await page.getByRole("button", { name: "Invite", exact: true }).click();
    await page.getByRole("status").filter({ hasText: `Invitation sent to ${invited}` }).waitFor();
    expect(await page.getByLabel("Invitation link").count()).toBe(0);
    const mail = await capture.waitFor((m) => m.to.includes(invited));
    expect(mail.subject).toBe("E2E Owner invited you to Mailed Invites Ltd on dmarcwarden");
    expect(linkIn(mail, `${ctx.server.url}/invite?token=`)).toBeTruthy();
    expect(errors).toEqual([]);
    await page.context().close();
  });
});
