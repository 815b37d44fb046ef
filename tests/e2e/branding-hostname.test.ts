/**
 * An MSP's custom hostname in Chromium on the built executable: the MSP sets it in Settings'
 * white-label card, where it is pending with the CNAME record to publish, and verifies it (the
 * server's resolver asks the test DNS server, which has the name as a CNAME to --public-url's
 * host). Before that the name brands nothing; once verified, a browser that reaches the server
 * under that name (mapped to 127.0.0.1 with --host-resolver-rules, so the Host header is the
 * MSP's) sees the MSP's name and logo on the sign-in page without ?brand=; under the server's own
 * address it stays SPEC's mark. SHOTS_DIR keeps screenshots (the card light, dark and at 375 px).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chromium, type Browser } from "playwright-core";
import { CHROMIUM, newPage } from "../support/browser";
import { startDnsServer, type TestDnsServer } from "../support/dns-server";
import { noOverflow, shot, signUpViaApi, useServerAndBrowser } from "../support/e2e";

const HOST = "dmarc.northwind-msp.test";
/** the deployment's own host name (its --public-url), which the MSP's name must point at */
const APP_HOST = "app.northwind-dw.test";
let dns: TestDnsServer;
beforeAll(async () => {
  dns = await startDnsServer({ [APP_HOST]: { A: ["127.0.0.1"] }, [HOST]: { CNAME: APP_HOST } });
});
afterAll(() => dns?.close());
const ctx = useServerAndBrowser({ args: () => ["--public-url", `http://${APP_HOST}:{port}`, "--dns-server", dns.address] });
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
    // saved, not yet verified: pending, with the record to publish; the link keeps ?brand=
    await page.getByTestId("hostname-status").filter({ hasText: "Pending" }).waitFor();
    expect(await page.getByTestId("hostname-record").textContent()).toBe(`${HOST} CNAME ${APP_HOST}.`);
    expect(await page.getByTestId("branding-login-link").textContent()).toContain("/login?brand=");
    expect((await (await page.request.get(base + "/api/branding")).json()).customHostnameStatus).toBe("pending");
    const port = new URL(base).port;
    const visitor = await newPage(mapped);
    // pending: the name brands nothing
    await visitor.page.goto(`http://${HOST}:${port}/login`);
    await visitor.page.getByRole("heading", { name: "Sign in" }).waitFor();
    await visitor.page.getByTestId("brand-name").filter({ hasText: "dmarcwarden" }).waitFor();
    await page.getByRole("heading", { name: "White-label" }).scrollIntoViewIfNeeded();
    if (process.env.SHOTS_DIR) await page.getByRole("region", { name: "White-label" }).screenshot({ path: `${process.env.SHOTS_DIR}/branding-hostname-card-pending-1280.png` });

    // the name is only ours once its proof record is published as the card shows it
    const proof = (await (await page.request.get(base + "/api/branding")).json()).customHostnameProof as { name: string; value: string };
    expect(proof.name).toBe(`_dmarcwarden-verify.${HOST}`);
    dns.zone[proof.name] = { TXT: [proof.value] };

    // Verify: the server asks DNS; verified, the clients' link uses the name
    await page.getByRole("button", { name: "Verify", exact: true }).click();
    await page.getByTestId("hostname-status").filter({ hasText: "Verified" }).waitFor();
    await page.getByTestId("branding-login-link").filter({ hasText: `https://${HOST}/login` }).waitFor();
    expect(await page.getByTestId("hostname-message").textContent()).toContain(`${HOST} is a CNAME to ${APP_HOST}`);
    expect((await (await page.request.get(base + "/api/branding")).json()).customHostnameStatus).toBe("verified");
    await page.getByRole("heading", { name: "White-label" }).scrollIntoViewIfNeeded();
    await shot(page, "branding-hostname-settings-1280");
    // the card alone, readable at full size
    if (process.env.SHOTS_DIR) await page.getByRole("region", { name: "White-label" }).screenshot({ path: `${process.env.SHOTS_DIR}/branding-hostname-card-1280.png` });
    // the card in the dark theme, and at 375 px
    for (const [name, options] of [
      ["dark-1280", { viewport: { width: 1280, height: 900 }, colorScheme: "dark" as const }],
      ["375", { viewport: { width: 375, height: 800 } }],
    ] as const) {
      const other = await ctx.browser.newContext({ ...options, storageState: await page.context().storageState() });
      const p = await other.newPage();
      await p.goto(base + "/app/settings");
      await p.getByTestId("hostname-status").filter({ hasText: "Verified" }).waitFor();
      await p.getByRole("heading", { name: "White-label" }).scrollIntoViewIfNeeded();
      expect(await noOverflow(p)).toBeLessThanOrEqual(0);
      if (process.env.SHOTS_DIR) await p.getByRole("region", { name: "White-label" }).screenshot({ path: `${process.env.SHOTS_DIR}/branding-hostname-card-${name}.png` });
      await other.close();
    }

    // a signed-out browser reaching the server under the MSP's name: its brand, no ?brand= needed
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
