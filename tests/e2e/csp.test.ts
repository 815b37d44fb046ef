/**
 * The pages work under the server's Content-Security-Policy: landing (and its dialogs), login,
 * and the signed-in dashboard load in Chromium without a single CSP violation. (The trial's
 * payment step with Stripe.js is checked in trial.test.ts.)
 */
import { describe, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import { newPage } from "../support/browser";
import { signUpViaApi, useServerAndBrowser } from "../support/e2e";

const ctx = useServerAndBrowser();

function watchCsp(page: Page): string[] {
  const violations: string[] = [];
  page.on("console", (message) => {
    if (/Content Security Policy/i.test(message.text())) violations.push(message.text());
  });
  return violations;
}

describe("pages under the Content-Security-Policy", () => {
  test("landing, its sign-in dialog, login, and the dashboard with its quick actions menu load without CSP violations", async () => {
    const { page, errors } = await newPage(ctx.browser);
    const violations = watchCsp(page);

    const landing = await page.goto(ctx.server.url + "/");
    expect(landing!.headers()["content-security-policy"]).toContain("script-src 'self'");
    await page.getByRole("heading", { level: 1 }).first().waitFor();
    await page.getByRole("button", { name: /sign in/i }).first().click();
    await page.getByRole("dialog").waitFor();
    await page.keyboard.press("Escape");

    await page.goto(ctx.server.url + "/login");
    await page.getByRole("button", { name: /sign in/i }).first().waitFor();

    await signUpViaApi(page, ctx.server.url, { email: "csp@northwind.test" });
    await page.goto(ctx.server.url + "/app/dashboard");
    await page.getByRole("button", { name: /quick actions/i }).click();
    await page.getByRole("menu").waitFor();

    expect(violations).toEqual([]);
    expect(errors).toEqual([]);
  });
});
