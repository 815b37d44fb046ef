/**
 * The signed-in screens on real data: sign up, add domains (checked against a local DNS
 * server), upload a report with failing sources, then the dashboard, tasks, threat map and
 * settings in Chromium. Set SHOTS_DIR to keep screenshots at 1280 and 375 px.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import { aggregateXml } from "../../src/lib/reports/generate";
import { newPage } from "../support/browser";
import { fixtureZone, startDnsServer, type TestDnsServer } from "../support/dns-server";
import { signUpViaApi, useServerAndBrowser, shot } from "../support/e2e";

let dns: TestDnsServer;
beforeAll(async () => {
  dns = await startDnsServer(fixtureZone());
});
afterAll(() => dns?.close());
const ctx = useServerAndBrowser({ args: () => ["--dns-server", dns.address] });
const SHOTS = process.env.SHOTS_DIR;
const HOUR = 3_600_000;

async function signUpWithData(page: Page, email: string) {
  await signUpViaApi(page, ctx.server.url, { name: "Dana Ops", email, password: "dashboard password 1", organization: "Northwind Clinic" });
  for (const name of ["nopolicy.test", "good.test"]) expect((await page.request.post(ctx.server.url + "/api/domains", { data: { name } })).status()).toBe(201);
  const now = Date.now();
  const xml = aggregateXml({
    orgName: "google.com",
    reportId: `e2e-${now}`,
    begin: new Date(now - 20 * HOUR),
    end: new Date(now - HOUR),
    domain: "nopolicy.test",
    records: [
      { sourceIp: "192.0.2.1", count: 940, dkim: "pass", spf: "pass" },
      { sourceIp: "203.0.113.9", count: 150, dkim: "fail", spf: "fail", disposition: "none" },
      { sourceIp: "198.51.100.7", count: 6, dkim: "fail", spf: "fail", disposition: "none" },
    ],
  });
  const upload = await page.request.post(ctx.server.url + "/api/reports/upload", { multipart: { files: { name: "google.xml", mimeType: "text/xml", buffer: Buffer.from(xml) } } });
  expect(upload.status()).toBe(200);
  // the DNS checks run in the background after a domain is added
  for (let i = 0; i < 100; i++) {
    const domains = (await (await page.request.get(ctx.server.url + "/api/domains")).json()) as { name: string; dmarcPolicy: string | null }[];
    if (domains.every((d) => d.dmarcPolicy)) break;
    await Bun.sleep(100);
  }
}

describe("signed-in screens on real data", () => {
  test("the dashboard shows stats, domains, tasks, threats, reports and the quick lookup; notifications and quick actions work", async () => {
    const { page, errors } = await newPage(ctx.browser);
    await signUpWithData(page, "dana@northwind.test");
    await page.goto(ctx.server.url + "/app/dashboard");
    await page.getByRole("heading", { name: "Dashboard", level: 1 }).waitFor();

    const stats = page.getByRole("region", { name: "Statistics" });
    await stats.waitFor();
    expect(await stats.getByRole("group", { name: "DMARC Protection" }).textContent()).toContain("1 of 2 domains enforced");
    expect(await stats.getByRole("group", { name: "Reports Processed" }).textContent()).toContain("0.0K");

    const table = page.getByRole("region", { name: "Domain Status" }).getByRole("table");
    await table.getByText("nopolicy.test").waitFor();
    expect(await table.locator('tr[data-domain="nopolicy.test"]').textContent()).toContain("Vulnerable");
    expect(await table.locator('tr[data-domain="good.test"]').textContent()).toContain("Protected");

    const tasks = page.getByRole("region", { name: "Tasks & Issues" });
    await tasks.getByText("Move nopolicy.test from p=none to quarantine").waitFor();
    expect(await tasks.getByRole("listitem").count()).toBeLessThanOrEqual(3);

    const threats = page.getByRole("list", { name: "Threats" });
    await threats.locator('[data-ip="203.0.113.9"]').waitFor();
    expect(await threats.getByRole("listitem").count()).toBe(2);
    expect(await page.getByText("Last 24h").first().isVisible()).toBe(true);

    const reports = page.getByRole("list", { name: "Reports" });
    await reports.getByText("google.com").waitFor();
    // 940 of 1,096 messages passed: 85.8%, orange (80 or above, under 95)
    expect(await reports.locator("[data-pass-rate]").first().textContent()).toBe("85.8%");
    expect(await reports.locator("[data-pass-rate]").first().getAttribute("class")).toContain("text-pass-orange");
    await page.getByPlaceholder("Enter domain (e.g., example.com)").waitFor();
    await shot(page, "dashboard-1280");

    // notifications: the high threat and urgent tasks, local read state
    await page.getByRole("button", { name: /^Notifications: \d+ unread$/ }).click();
    await page.getByText("High threat from 203.0.113.9").waitFor();
    await shot(page, "notifications-1280");
    await page.getByRole("menuitem", { name: "Mark all read" }).click();
    await page.keyboard.press("Escape");
    await page.getByRole("button", { name: "Notifications", exact: true }).waitFor();

    // quick actions: Check Issues goes to the full task list
    await page.getByRole("button", { name: /Quick Actions/ }).click();
    await page.getByRole("menuitem", { name: "Add Domain" }).waitFor();
    await shot(page, "quick-actions-1280");
    await page.getByRole("menuitem", { name: "Check Issues" }).click();
    await page.getByRole("heading", { name: "Tasks & Issues", level: 1 }).waitFor();
    await page.getByText("Move nopolicy.test from p=none to quarantine").waitFor();
    await shot(page, "tasks-1280");

    await page.goto(ctx.server.url + "/app/threats");
    await page.getByRole("heading", { name: "Threat Map", level: 1 }).waitFor();
    await page.getByRole("list", { name: "Attempts by country" }).waitFor();
    await page.locator('[data-ip="203.0.113.9"]').waitFor();
    await shot(page, "threats-1280");

    await page.goto(ctx.server.url + "/app/settings");
    const ttl = page.getByLabel("Cache TTL (seconds)");
    await ttl.waitFor();
    expect(await ttl.getAttribute("placeholder")).toBe("3600");
    expect(await page.getByLabel("Organization name").inputValue()).toBe("Northwind Clinic");
    await ttl.fill("900");
    await page.getByRole("button", { name: "Save Settings" }).click();
    await page.getByText("Settings Saved").first().waitFor();
    await shot(page, "settings-1280");
    await page.reload();
    await page.getByLabel("Cache TTL (seconds)").waitFor();
    await page.waitForFunction(() => (document.querySelector('input[placeholder="3600"]') as HTMLInputElement | null)?.value === "900");
    expect(errors).toEqual([]);
    await page.context().close();
  }, 60_000);

  test("on a phone (375 px) the dashboard and tasks fit the screen", async () => {
    const { page, errors } = await newPage(ctx.browser, { width: 375, height: 812 });
    await signUpWithData(page, "phone@northwind.test");
    await page.goto(ctx.server.url + "/app/dashboard");
    await page.getByRole("region", { name: "Statistics" }).waitFor();
    await page.locator('[data-ip="203.0.113.9"]').waitFor();
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    await shot(page, "dashboard-375");
    await page.goto(ctx.server.url + "/app/threats");
    await page.getByRole("list", { name: "Attempts by country" }).waitFor();
    await shot(page, "threats-375");
    await page.goto(ctx.server.url + "/app/settings");
    await page.getByLabel("Cache TTL (seconds)").waitFor();
    await shot(page, "settings-375");
    expect(errors).toEqual([]);
    await page.context().close();
  }, 60_000);
});
