/**
 * The /trial flow in Chromium against the built executable, in both billing modes:
 * - billing off (no Stripe keys): landing → plan → details → signed-in dashboard with the "organisation is ready" toast (no trial claimed);
 * - billing on: the server talks to the Stripe stand-in (tests/support/stripe-server.ts) and the
 *   page gets a small stand-in for Stripe.js through request interception — the real script
 *   loads from Stripe's servers, which no test may reach.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Browser, Page, Route } from "playwright-core";
import { launchBrowser, newPage } from "../support/browser";
import { startServer, type RunningServer } from "../support/server";
import { signedEvent, startStripeServer, stripeFlags, TEST_PRICES, TEST_PUBLISHABLE_KEY, type StripeStandIn } from "../support/stripe-server";

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
}, 180_000);
afterAll(async () => {
  await browser?.close();
});

/** A promise with its resolve handle: lets a test hold a request until it has looked at the page. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { open, opened };
}

async function fillDetails(page: Page, email: string) {
  await page.getByLabel("Company Name").fill("Harbor Realty");
  await page.getByLabel("Work Email").fill(email);
  await page.getByLabel("Number of Domains").fill("4");
  await page.getByLabel("First Name").fill("Grace");
  await page.getByLabel("Last Name").fill("Hopper");
}

const toastWith = (page: Page, title: string) => page.getByTestId("toast").filter({ hasText: title });

describe("trial sign-up with billing off (self-hosted mode)", () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await startServer();
  }, 180_000);
  afterAll(async () => {
    await server?.stop();
  });

  test("from the landing page's trial button to a signed-in dashboard that says the organization is ready (no trial runs without billing), shown once", async () => {
    const { page, errors } = await newPage(browser);
    await page.goto(server.url + "/");
    await page.getByRole("link", { name: "Start 7-Day Free Trial" }).first().click();
    await page.waitForURL("**/trial");

    // plan step: three plans with SPEC's prices, Growth pre-selected and Most Popular
    const plans = page.getByRole("radiogroup", { name: "Plans" });
    for (const price of ["$29", "$99", "$299"]) await plans.getByText(price, { exact: true }).waitFor();
    expect(await plans.getByRole("radio", { name: /Growth/ }).getAttribute("aria-checked")).toBe("true");
    expect(await plans.getByRole("radio", { name: /Growth/ }).getByText("Most Popular").isVisible()).toBe(true);
    // no payment step without billing
    expect(await page.getByRole("list", { name: "Trial steps" }).innerText()).not.toContain("Payment");
    await plans.getByRole("radio", { name: /Essentials/ }).click();
    expect(await plans.getByRole("radio", { name: /Essentials/ }).getAttribute("aria-checked")).toBe("true");
    await page.getByRole("button", { name: "Continue" }).click();

    // details step: every field required
    await page.getByRole("heading", { name: "Tell us about your organization" }).waitFor();
    await page.getByRole("button", { name: "Continue" }).click();
    await page.getByText("Company name is required").waitFor();
    expect(await page.getByText("Email is required").isVisible()).toBe(true);
    expect(await page.getByText("First name is required").isVisible()).toBe(true);
    await fillDetails(page, "grace@harbor.test");
    await page.getByLabel("Number of Domains").fill("150");
    await page.getByRole("button", { name: "Continue" }).click();
    await page.getByText("Number of domains must be a whole number from 1 to 100").waitFor();
    await page.getByLabel("Number of Domains").fill("4");

    // Back keeps what was typed and the chosen plan
    await page.getByRole("button", { name: "Back" }).click();
    expect(await plans.getByRole("radio", { name: /Essentials/ }).getAttribute("aria-checked")).toBe("true");
    await page.getByRole("button", { name: "Continue" }).click();
    expect(await page.getByLabel("Work Email").inputValue()).toBe("grace@harbor.test");

    await page.getByRole("button", { name: "Continue" }).click();
    await page.waitForURL("**/app/dashboard");
    await toastWith(page, "Your organization is ready").waitFor();
    // self-hosted: no trial clock runs, so SPEC's Stripe-mode toast would be untrue
    expect(await toastWith(page, "Trial Started Successfully!").count()).toBe(0);
    expect(await page.getByText("Your 7-day trial is now active").count()).toBe(0);
    // the parameter is dropped, so a reload does not toast again
    expect(new URL(page.url()).search).toBe("");

    // signed in as the new owner, on the chosen plan, with the prompt to set a password
    const status = await page.evaluate(async () => (await fetch("/api/billing/status")).json());
    expect(status).toMatchObject({ plan: "essentials", status: "none", hasPassword: false, readOnly: false });
    await page.getByRole("heading", { name: "Set your password" }).waitFor();
    await page.getByRole("button", { name: "Set Password" }).click();
    await page.getByLabel("New password").fill("a long enough password");
    await page.getByRole("button", { name: "Save Password" }).click();
    await toastWith(page, "Password set").waitFor();
    await page.getByRole("heading", { name: "Set your password" }).waitFor({ state: "detached" });

    await page.reload();
    await page.getByRole("heading", { name: "Dashboard" }).waitFor();
    expect(await toastWith(page, "Your organization is ready").count()).toBe(0);
    expect(errors).toEqual([]);
    await page.context().close();
  }, 60_000);

  test("a refused details call (email already registered) keeps the form, logs to the console and shows no toast", async () => {
    const email = "taken@harbor.test";
    const created = await fetch(server.url + "/api/create-trial-setup", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ company: "First", email, domains: 1, firstName: "A", lastName: "B", selectedPlan: "growth" }),
    });
    expect(created.status).toBe(200);

    const { page } = await newPage(browser);
    const consoleErrors: string[] = [];
    page.on("console", (m) => m.type() === "error" && consoleErrors.push(m.text()));
    await page.goto(server.url + "/trial");
    await page.getByRole("button", { name: "Continue" }).click();
    await fillDetails(page, email);
    await page.getByRole("button", { name: "Continue" }).click();
    await page.getByText("An account with this email already exists. Sign in instead.").waitFor();
    expect(await page.getByRole("link", { name: "Sign in to your account" }).getAttribute("href")).toBe("/login");
    expect(page.url()).toEndWith("/trial");
    expect(await page.getByLabel("Company Name").inputValue()).toBe("Harbor Realty");
    expect(consoleErrors.some((m) => m.includes("Trial setup failed"))).toBe(true);
    expect(await page.getByTestId("toast").count()).toBe(0);
    await page.context().close();
  }, 60_000);
});

/** Just enough of Stripe.js for @stripe/react-stripe-js: Stripe(key) → elements() → create().mount(), confirmSetup(). */
const STRIPE_JS_STAND_IN = `
(function () {
  function Stripe(key, options) {
    var state = (window.__stripeStandIn = { key: key, elementsOptions: null, mounted: [], confirmCalls: [] });
    function createElement(type) {
      var listeners = {};
      var element = {
        mount: function (node) {
          var root = typeof node === "string" ? document.querySelector(node) : node;
          var input = document.createElement("input");
          input.setAttribute("aria-label", "Card details (test stand-in)");
          input.className = "input w-full";
          root.appendChild(input);
          state.mounted.push(type);
          setTimeout(function () { (listeners.ready || []).forEach(function (cb) { cb({ elementType: type }); }); }, 0);
        },
        on: function (event, cb) { (listeners[event] = listeners[event] || []).push(cb); return element; },
        off: function (event, cb) { listeners[event] = (listeners[event] || []).filter(function (f) { return f !== cb; }); return element; },
        update: function () {}, destroy: function () {}, unmount: function () {}, focus: function () {}, blur: function () {}, clear: function () {}, collapse: function () {},
      };
      return element;
    }
    return {
      elements: function (opts) {
        state.elementsOptions = opts;
        return { create: createElement, getElement: function () { return null; }, update: function () {}, submit: function () { return Promise.resolve({}); }, fetchUpdates: function () { return Promise.resolve({}); } };
      },
      createToken: function () { return Promise.resolve({}); },
      createPaymentMethod: function () { return Promise.resolve({}); },
      confirmCardPayment: function () { return Promise.resolve({}); },
      confirmSetup: function (params) {
        state.confirmCalls.push(params.confirmParams);
        return new Promise(function (resolve, reject) {
          window.__finishConfirm = function (outcome) {
            if (outcome === "declined") resolve({ error: { type: "card_error", code: "card_declined", message: "Your card was declined." } });
            else if (outcome === "throw") reject(new Error("connection lost"));
            else window.location.assign(params.confirmParams.return_url);
          };
        });
      },
      _registerWrapper: function () {},
      registerAppInfo: function () {},
    };
  }
  Stripe.version = "endive";
  window.Stripe = Stripe;
})();
`;

describe("trial sign-up with billing on (Stripe)", () => {
  let stripe: StripeStandIn;
  let server: RunningServer;
  beforeAll(async () => {
    stripe = startStripeServer();
    server = await startServer({ args: stripeFlags(stripe.url) });
  }, 180_000);
  afterAll(async () => {
    await server?.stop();
    stripe?.close();
  });

  test("payment step: Setting up your trial..., button disabled until Stripe.js loads, Processing..., the provider's error, then success", async () => {
    const { page, errors } = await newPage(browser);
    // the page's Content-Security-Policy must let Stripe.js load and run
    const cspViolations: string[] = [];
    page.on("console", (message) => {
      if (/Content Security Policy/i.test(message.text())) cspViolations.push(message.text());
    });
    const stripeJs = gate();
    const scriptRequests: string[] = [];
    await page.route("https://js.stripe.com/**", async (route: Route) => {
      scriptRequests.push(route.request().url());
      await stripeJs.opened;
      await route.fulfill({ status: 200, contentType: "application/javascript", body: STRIPE_JS_STAND_IN });
    });
    const setupCall = gate();
    await page.route("**/api/create-trial-setup", async (route: Route) => {
      await setupCall.opened;
      await route.continue();
    });

    await page.goto(server.url + "/trial");
    await page.getByRole("list", { name: "Trial steps" }).getByText("Payment").waitFor();
    await page.getByRole("radio", { name: /Scale/ }).click();
    await page.getByRole("button", { name: "Continue" }).click();
    await fillDetails(page, "grace@stripe-mode.test");
    await page.getByRole("button", { name: "Continue" }).click();

    // until the client secret arrives
    await page.getByText("Setting up your trial...").first().waitFor();
    expect(scriptRequests).toEqual([]);
    setupCall.open();

    // Stripe.js requested but not loaded yet: the button waits
    const submit = page.getByRole("button", { name: "Start Free Trial" });
    await submit.waitFor();
    expect(await submit.isDisabled()).toBe(true);
    expect(scriptRequests.length).toBeGreaterThan(0);
    expect(await page.getByText("Your card will not be charged today").isVisible()).toBe(true);
    expect(await page.getByText("converts automatically to Scale / Enterprise at $299/month").isVisible()).toBe(true);
    stripeJs.open();
    await page.getByLabel("Card details (test stand-in)").waitFor();
    await page.waitForFunction(() => !(document.querySelector('form[aria-label="Payment method"] button[type=submit]') as HTMLButtonElement).disabled);
    const standIn = await page.evaluate(() => (window as any).__stripeStandIn);
    expect(standIn.key).toBe(TEST_PUBLISHABLE_KEY);
    expect(standIn.elementsOptions.clientSecret).toMatch(/^seti_.+_secret_/);
    expect(standIn.mounted).toEqual(["payment"]);

    // the provider refuses the card
    await submit.click();
    const processing = page.getByRole("button", { name: "Processing..." });
    await processing.waitFor();
    expect(await processing.isDisabled()).toBe(true);
    await page.evaluate(() => (window as any).__finishConfirm("declined"));
    await toastWith(page, "Payment Setup Failed").waitFor();
    expect(await toastWith(page, "Payment Setup Failed").innerText()).toContain("Your card was declined.");
    const confirmParams = (await page.evaluate(() => (window as any).__stripeStandIn.confirmCalls))[0];
    expect(confirmParams.return_url).toBe(server.url + "/app/dashboard?trial=success");

    // an unexpected failure
    await submit.click();
    await page.evaluate(() => (window as any).__finishConfirm("throw"));
    await toastWith(page, "An error occurred").waitFor();
    expect(await toastWith(page, "An error occurred").innerText()).toContain("Please try again or contact support.");

    // Back to details keeps the values; sending them again resumes the same setup
    await page.getByRole("button", { name: "Back" }).click();
    expect(await page.getByLabel("Work Email").inputValue()).toBe("grace@stripe-mode.test");
    await page.getByRole("button", { name: "Continue" }).click();
    await submit.waitFor();
    expect((await page.evaluate(() => (window as any).__stripeStandIn.elementsOptions.clientSecret)) as string).toBe(standIn.elementsOptions.clientSecret);

    // the provider confirms and returns the visitor to the dashboard
    await page.waitForFunction(() => !(document.querySelector('form[aria-label="Payment method"] button[type=submit]') as HTMLButtonElement).disabled);
    await submit.click();
    await page.evaluate(() => (window as any).__finishConfirm("success"));
    await page.waitForURL("**/app/dashboard");
    await toastWith(page, "Trial Started Successfully!").waitFor();
    const status = await page.evaluate(async () => (await fetch("/api/billing/status")).json());
    expect(status).toMatchObject({ plan: "scale", status: "trialing", hasPassword: false });
    await page.getByText(/days? left in your free trial of Scale/).waitFor();

    // Stripe then tells the server the card is saved: the subscription starts on the Scale price
    const customer = [...stripe.objects.values()].find((o) => o.object === "customer" && o.email === "grace@stripe-mode.test")!;
    const intent = [...stripe.objects.values()].find((o) => o.object === "setup_intent" && o.customer === customer.id)!;
    const { payload, signature } = await signedEvent(stripe.client(), { type: "setup_intent.succeeded", object: { ...intent, status: "succeeded", payment_method: "pm_card_visa" } });
    const hook = await fetch(server.url + "/api/stripe/webhook", { method: "POST", headers: { "stripe-signature": signature, "content-type": "application/json" }, body: payload });
    expect(hook.status).toBe(200);
    const created = stripe.calls("/v1/subscriptions", "POST").find((r) => r.params.customer === customer.id)!;
    expect(created.params["items[0][price]"]).toBe(TEST_PRICES.scale);
    expect(created.params.default_payment_method).toBe("pm_card_visa");
    expect(cspViolations).toEqual([]);
    expect(errors).toEqual([]);
    await page.context().close();
  }, 90_000);
});
