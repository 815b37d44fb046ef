/**
 * White-label branding in Chromium on the built executable: an MSP sets its name, colour and
 * logo; inside its client organisation the sidebar shows them, as does the sign-in page reached
 * through the MSP's link; an unrelated account keeps SPEC's own mark. SHOTS_DIR keeps screenshots.
 */
import { describe, expect, test } from "bun:test";
import { newPage } from "../support/browser";
import { shot, signUpViaApi, useServerAndBrowser } from "../support/e2e";

const ctx = useServerAndBrowser();
// a 1×1 PNG (scaled up in the header)
const PNG = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==", "base64");

describe("White-label", () => {
  test("a client organization's users see their MSP's name, logo and colour; its sign-in link too", async () => {
    const { page, errors } = await newPage(ctx.browser);
    const base = ctx.server.url;
    const headers = { origin: base };
    await signUpViaApi(page, base, { name: "Mia Partner", email: `mia-${Date.now()}@northwind.test`, password: "branding password 1", organization: "Northwind IT" });
    const me = await (await page.request.get(base + "/api/auth/me")).json();
    const mspSlug: string = me.currentOrg.slug;

    // the MSP's settings card, then its branding through the API (the contract)
    await page.goto(base + "/app/settings");
    await page.getByRole("heading", { name: "White-label" }).waitFor();
    const put = await page.request.put(base + "/api/branding", { data: { productName: "Northwind Shield", primaryColor: "#ea580c", supportEmail: "help@northwind.test" }, headers });
    expect(put.status()).toBe(200);
    const logo = await page.request.put(base + "/api/branding/logo", { multipart: { logo: { name: "logo.png", mimeType: "image/png", buffer: PNG } }, headers });
    expect(logo.status()).toBe(200);
    await page.reload();
    await page.getByRole("heading", { name: "White-label" }).waitFor();
    await page.getByRole("img", { name: "Current logo" }).waitFor();
    expect(await page.getByLabel("Product name").inputValue()).toBe("Northwind Shield");
    await shot(page, "branding-settings-1280");

    // a client organization: its users see the MSP's brand in the app header
    const client = await page.request.post(base + "/api/orgs/clients", { data: { name: "Acme Dental" }, headers });
    expect(client.status()).toBe(201);
    const clientOrg = await client.json();
    expect((await page.request.post(base + `/api/orgs/${clientOrg.id}/switch`, { headers })).status()).toBe(200);
    await page.goto(base + "/app/dashboard");
    const sidebar = page.getByRole("complementary", { name: "Sidebar" }).first();
    await sidebar.getByTestId("brand-name").filter({ hasText: "Northwind Shield" }).waitFor();
    const img = sidebar.getByTestId("brand-logo");
    await img.waitFor();
    expect(await img.evaluate((el: HTMLImageElement) => el.complete && el.naturalWidth)).toBe(1);
    expect(await page.evaluate(() => document.documentElement.style.getPropertyValue("--color-primary"))).toBe("#ea580c");
    await shot(page, "branding-client-dashboard-1280");

    // the sign-in page through the MSP's link, signed out
    const signedOut = await newPage(ctx.browser);
    await signedOut.page.goto(`${base}/login?brand=${mspSlug}`);
    await signedOut.page.getByTestId("brand-name").filter({ hasText: "Northwind Shield" }).waitFor();
    await signedOut.page.getByTestId("brand-logo").waitFor();
    await shot(signedOut.page, "branding-login-1280");
    // without the link: SPEC's own mark
    await signedOut.page.goto(`${base}/login`);
    await signedOut.page.getByTestId("brand-name").filter({ hasText: "dmarcwarden" }).waitFor();
    expect(await signedOut.page.getByTestId("brand-logo").count()).toBe(0);

    // an unrelated account keeps dmarcwarden
    const other = await newPage(ctx.browser);
    await signUpViaApi(other.page, base, { organization: "Other Org" });
    await other.page.goto(base + "/app/dashboard");
    const otherSidebar = other.page.getByRole("complementary", { name: "Sidebar" }).first();
    await otherSidebar.getByTestId("brand-name").filter({ hasText: "dmarcwarden" }).waitFor();
    expect(await otherSidebar.getByTestId("brand-logo").count()).toBe(0);
    expect(await other.page.evaluate(() => document.documentElement.style.getPropertyValue("--color-primary"))).toBe("");

    expect(errors).toEqual([]);
    expect(signedOut.errors).toEqual([]);
  }, 120_000);
});
