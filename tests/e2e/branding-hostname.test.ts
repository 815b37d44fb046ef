/**
 * An MSP's custom hostname in Chromium on the built executable: the MSP sets it in Settings'
 * white-label card; a browser that reaches the server under that name (mapped to 127.0.0.1 with
 * --host-resolver-rules, so the Host header is the MSP's) sees the MSP's name and logo on the
 * sign-in page without ?brand=; under the server's own address it stays SPEC's mark.
 * SHOTS_DIR keeps screenshots.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chromium, type Browser } from "playwright-core";
import { CHROMIUM, newPage } from "../support/browser";
import { noOverflow, shot, signUpViaApi, useServerAndBrowser } from "../support/e2e";

const ctx = useServerAndBrowser();
const HOST = "dmarc.northwind-msp.test";
// a 1×1 PNG (scaled up in the header)
const PNG = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==", "base64");

let mapped: Browser;
beforeAll(async () => {
  mapped = await chromium.launch({
    executablePath: CHROMIUM,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage", `--host-resolver-rules=MAP ${HOST} 127.0.0.1`],
  });
}, 60_000);
afterAll(() => mapped?.close());

describe("White-label custom hostname", () => {
  test("the MSP sets its hostname; the sign-in page opened under it shows the MSP's brand", async () => {
    const { page, errors } = await newPage(ctx.browser);
    const base = ctx.server.url;
    const headers = { origin: base };
    await signUpViaApi(page, base, { name: "Mia Partner", email: `mia-${Date.now()}@northwind.test`, password: "branding password 1", organization: "Northwind IT" });
    expect((await page.request.put(base + "/api/branding/logo", { multipart: { logo: { name: "logo.png", mimeType: "image/png", buffer: PNG } }, headers })).status()).toBe(200);

    // Settings › White-label: the hostname is typed and saved with the branding
    await page.goto(base + "/app/settings");
    await page.getByRole("heading", { name: "White-label" }).waitFor();
    await page.getByLabel("Product name").fill("Northwind Shield");
    await page.getByPlaceholder("#2563eb").fill("#ea580c");
    await page.getByLabel(/^Custom hostname/).fill(HOST);
    await page.getByRole("button", { name: "Save branding" }).click();
    await page.getByTestId("branding-login-link").filter({ hasText: `https://${HOST}/login` }).waitFor();
    expect((await (await page.request.get(base + "/api/branding")).json()).customHostname).toBe(HOST);
    await page.getByRole("heading", { name: "White-label" }).scrollIntoViewIfNeeded();
    await shot(page, "branding-hostname-settings-1280");
    // the card alone, readable at full size
    if (process.env.SHOTS_DIR) await page.getByRole("region", { name: "White-label" }).screenshot({ path: `${process.env.SHOTS_DIR}/branding-hostname-card-1280.png` });

    // a signed-out browser reaching the server under the MSP's name: its brand, no ?brand= needed
    const port = new URL(base).port;
    const visitor = await newPage(mapped);
    await visitor.page.goto(`http://${HOST}:${port}/login`);
    await visitor.page.getByRole("heading", { name: "Sign in" }).waitFor();
    await visitor.page.getByTestId("brand-name").filter({ hasText: "Northwind Shield" }).waitFor();
    const logo = visitor.page.getByTestId("brand-logo");
    await logo.waitFor();
    expect(await logo.evaluate((el: HTMLImageElement) => el.complete && el.naturalWidth)).toBe(1);
    expect(await visitor.page.evaluate(() => document.documentElement.style.getPropertyValue("--color-primary"))).toBe("#ea580c");
    expect(await noOverflow(visitor.page)).toBeLessThanOrEqual(0);
    await shot(visitor.page, "branding-hostname-login-1280");

    // the same browser under the server's own address: SPEC's own mark
    await visitor.page.goto(`${base}/login`);
    await visitor.page.getByRole("heading", { name: "Sign in" }).waitFor();
    await visitor.page.getByTestId("brand-name").filter({ hasText: "dmarcwarden" }).waitFor();
    expect(await visitor.page.getByTestId("brand-logo").count()).toBe(0);

    expect(errors).toEqual([]);
    expect(visitor.errors).toEqual([]);
  }, 120_000);
});
