/**
 * OAuth2 report mailboxes in Chromium against the built executable and the local stand-in of
 * Microsoft's and Google's endpoints (tests/support/oauth-mail-standin.ts): an owner connects a
 * Microsoft 365 mailbox from Settings through the provider's consent page, Check now ingests the
 * report waiting there, a withdrawn consent shows "Reconnect needed", and Reconnect restores it.
 * With SHOTS_DIR=<dir> the section is saved at 1280 and 375 px.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { newPage } from "../support/browser";
import { noOverflow, shot, signUpViaApi, useServerAndBrowser } from "../support/e2e";
import { oauthMailArgs, startOAuthMailStandIn } from "../support/oauth-mail-standin";
import { aggregateReportMail } from "../support/smtp";

const standIn = startOAuthMailStandIn();
afterAll(() => standIn.close());
const ctx = useServerAndBrowser({ args: oauthMailArgs(standIn.url) });

const MAILBOX = "dmarc@oauth-e2e.example";

describe("OAuth2 report mailboxes", () => {
  test("connect a Microsoft 365 mailbox from Settings, check it, see a withdrawn consent and reconnect", async () => {
    const base = ctx.server.url;
    const { page, errors } = await newPage(ctx.browser);
    await signUpViaApi(page, base, { organization: "OAuth Mail Works" });
    expect((await page.request.post(base + "/api/domains", { data: { name: "oauth-e2e.example" } })).status()).toBe(201);
    standIn.consentAs("microsoft", MAILBOX);
    standIn.deliver("microsoft", MAILBOX, aggregateReportMail({ domain: "oauth-e2e.example", reportId: "e2e-oauth-1" }));

    await page.goto(base + "/app/settings");
    const section = page.getByRole("region", { name: "Report mail" });
    await section.getByRole("button", { name: "Connect Microsoft 365" }).click();
    // through the provider's consent page and back to Settings
    await section.getByText("The mailbox is connected.", { exact: false }).waitFor();
    // the outcome is said once: the address bar forgets it
    expect(new URL(page.url()).pathname).toBe("/app/settings");
    expect(new URL(page.url()).searchParams.get("oauth_mailbox")).toBeNull();
    const row = section.getByTestId("oauth-mailbox");
    expect(await row.textContent()).toContain(MAILBOX);

    await row.getByRole("button", { name: "Check now" }).click();
    await row.getByText("1 message read", { exact: false }).waitFor();
    expect(standIn.count("microsoft", MAILBOX, "Processed")).toBe(1);
    const reports = await (await page.request.get(base + "/api/dmarc-reports")).text();
    expect(reports).toContain("e2e-oauth-1");
    // tokens never reach the browser
    const listed = await (await page.request.get(base + "/api/settings/oauth-mailboxes")).text();
    for (const token of standIn.issuedTokens) expect(listed).not.toContain(token);

    standIn.revoke("microsoft", MAILBOX);
    await row.getByRole("button", { name: "Check now" }).click();
    await row.getByText("Reconnect needed").waitFor();
    expect(await row.getByRole("alert").textContent()).toContain("no longer accepts dmarcwarden's access");
    await row.scrollIntoViewIfNeeded();
    await shot(page, "oauth-mailboxes-1280");
    if (process.env.SHOTS_DIR) await section.screenshot({ path: `${process.env.SHOTS_DIR}/oauth-mailboxes-section-1280.png` });
    await page.setViewportSize({ width: 375, height: 800 });
    expect(await noOverflow(page)).toBeLessThanOrEqual(0);
    if (process.env.SHOTS_DIR) await section.screenshot({ path: `${process.env.SHOTS_DIR}/oauth-mailboxes-section-375.png` });
    await page.setViewportSize({ width: 1280, height: 900 });

    await section.getByRole("button", { name: "Dismiss" }).click();
    await row.getByRole("button", { name: "Reconnect" }).click();
    await section.getByText("The mailbox is connected.", { exact: false }).waitFor();
    await section.getByTestId("oauth-mailbox").getByRole("button", { name: "Check now" }).waitFor();
    expect(await section.getByText("Reconnect needed").count()).toBe(0);
    expect(errors).toEqual([]);
  }, 120_000);
});
