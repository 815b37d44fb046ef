/**
 * The MSP portfolio in Chromium on the built executable: an MSP owner with clients (one with
 * reports), the portfolio at 1280 and 375 px, bulk onboarding through the screen (paste, preview,
 * import), the switcher's entry, and one click into a client. SHOTS_DIR keeps screenshots.
 */
import { describe, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import { aggregateXml } from "../../src/lib/reports/generate";
import { newPage } from "../support/browser";
import { noOverflow, shot, signUpViaApi, useServerAndBrowser } from "../support/e2e";

const ctx = useServerAndBrowser();
const HOUR = 3_600_000;

async function post(page: Page, path: string, data?: unknown) {
  const res = await page.request.post(ctx.server.url + path, { data, headers: { origin: ctx.server.url } });
  expect(res.status()).toBeLessThan(300);
  return res.json();
}

/** An MSP owner with two clients: Acme Dental has a domain and a report with failing mail. */
async function mspWithClients(page: Page, email: string) {
  await signUpViaApi(page, ctx.server.url, { name: "Mia Partner", email, password: "portfolio password 1", organization: "Northwind IT" });
  const me = await (await page.request.get(ctx.server.url + "/api/auth/me")).json();
  const imported = await post(page, "/api/portfolio/import", { csv: "Acme Dental, acmedental.test\nBaker Law, bakerlaw.test\nBaker Law, baker-legal.test", dryRun: false });
  expect(imported.summary).toEqual({ created: 3, exists: 0, errors: 0, clientsCreated: 2 });
  const { clients } = await (await page.request.get(ctx.server.url + "/api/portfolio")).json();
  const acme = clients.find((c: { name: string }) => c.name === "Acme Dental");
  await post(page, `/api/orgs/${acme.id}/switch`);
  const now = Date.now();
  const xml = aggregateXml({
    orgName: "google.com",
    reportId: `portfolio-${now}`,
    begin: new Date(now - 20 * HOUR),
    end: new Date(now - HOUR),
    domain: "acmedental.test",
    records: [
      { sourceIp: "192.0.2.1", count: 900, dkim: "pass", spf: "pass" },
      { sourceIp: "203.0.113.9", count: 100, dkim: "fail", spf: "fail", disposition: "none" },
    ],
  });
  const upload = await page.request.post(ctx.server.url + "/api/reports/upload", { multipart: { files: { name: "google.xml", mimeType: "text/xml", buffer: Buffer.from(xml) } }, headers: { origin: ctx.server.url } });
  expect(upload.status()).toBe(200);
  await post(page, `/api/orgs/${me.currentOrg.id}/switch`);
}

describe("Portfolio", () => {
  test("lists the clients with their figures, imports from a pasted CSV, and opens a client", async () => {
    const { page, errors } = await newPage(ctx.browser);
    await mspWithClients(page, `mia-${Date.now()}@northwind.test`);

    // the switcher's entry leads to the portfolio
    await page.goto(ctx.server.url + "/app/dashboard");
    await page.getByRole("button", { name: /switch organization/ }).click();
    await page.getByRole("menuitem", { name: "Client portfolio" }).click();
    await page.waitForURL(/\/app\/portfolio$/);
    await page.getByRole("heading", { name: "Portfolio", level: 1 }).waitFor();

    const table = page.getByRole("region", { name: "Clients" }).getByRole("table");
    await table.waitFor();
    const acme = table.getByRole("row", { name: /Acme Dental/ });
    expect(await acme.textContent()).toContain("90%");
    expect(await acme.textContent()).toContain("1,000");
    expect(await table.getByRole("row", { name: /Baker Law/ }).textContent()).toContain("None yet");
    await shot(page, "portfolio-1280");
    expect(await noOverflow(page)).toBe(0);

    // bulk onboarding: two good rows and a bad one
    await page.getByRole("textbox", { name: "CSV" }).fill("client name, domain\nCedar Realty, cedar.test\nCedar Realty, cedar homes\nBaker Law, bakerlaw.test\nDune Clinic, dune.test");
    await page.getByRole("button", { name: "Preview import" }).click();
    const preview = page.getByRole("region", { name: "Import preview" });
    await preview.waitFor();
    expect(await preview.getByRole("status").textContent()).toContain("2 domains to add · 2 new clients · 1 already monitored · 1 row with errors");
    expect(await preview.locator('tr[data-status="error"]').textContent()).toContain("Please enter a valid domain name");
    await shot(page, "portfolio-import-preview-1280");
    await page.getByRole("button", { name: "Import 2 domains" }).click();
    await page.getByRole("region", { name: "Import result" }).waitFor();
    await table.getByRole("row", { name: /Dune Clinic/ }).waitFor();
    expect(await table.getByRole("row").count()).toBe(5); // header + 4 clients

    // search and filter
    await page.getByRole("searchbox").fill("cedar");
    expect(await table.getByRole("row").count()).toBe(2);
    await page.getByRole("searchbox").fill("");

    // one click into a client
    await table.getByRole("button", { name: "Open Acme Dental" }).click();
    await page.waitForURL(/\/app\/dashboard$/);
    await page.getByRole("heading", { name: "Dashboard", level: 1 }).waitFor();
    await shot(page, "portfolio-opened-client-1280");
    expect(await page.getByRole("button", { name: /switch organization/ }).textContent()).toContain("Acme Dental");
    expect(errors).toEqual([]);
  });

  test("at 375 px the clients are cards and nothing scrolls sideways", async () => {
    const { page, errors } = await newPage(ctx.browser, { width: 375, height: 800 });
    await mspWithClients(page, `mia-phone-${Date.now()}@northwind.test`);
    await page.goto(ctx.server.url + "/app/portfolio");
    const list = page.getByRole("list", { name: "Clients list" });
    await list.waitFor();
    expect(await list.getByRole("listitem").count()).toBe(2);
    expect(await list.getByRole("listitem").first().textContent()).toContain("Acme Dental");
    expect(await noOverflow(page)).toBe(0);
    await shot(page, "portfolio-375");
    await page.getByRole("textbox", { name: "CSV" }).fill("Cedar Realty, cedar.test\nX, bad");
    await page.getByRole("button", { name: "Preview import" }).click();
    await page.getByRole("region", { name: "Import preview" }).waitFor();
    expect(await noOverflow(page)).toBe(0);
    await shot(page, "portfolio-import-375");
    expect(errors).toEqual([]);
  });

  test("an organization without clients: an empty portfolio and no switcher entry", async () => {
    const { page } = await newPage(ctx.browser);
    await signUpViaApi(page, ctx.server.url, { organization: "Solo Clinic" });
    const res = await page.request.get(ctx.server.url + "/api/portfolio");
    expect(res.status()).toBe(200);
    expect((await res.json()).clients).toEqual([]);
    await page.goto(ctx.server.url + "/app/dashboard");
    await page.getByRole("button", { name: /switch organization/ }).click();
    expect(await page.getByRole("menuitem", { name: "Client portfolio" }).count()).toBe(0);
  });
});
