/**
 * DNS lookup and domain status in the built executable when the DNS server does not answer
 * (SERVFAIL, then stopped): "could not check (DNS server did not answer)", never Invalid,
 * Vulnerable or setup advice; a domain whose check failed says so.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import { newPage } from "../support/browser";
import { fixtureZone, startDnsServer, type TestDnsServer } from "../support/dns-server";
import { shot, signUpViaApi, useServerAndBrowser } from "../support/e2e";

let dns: TestDnsServer;
let stopped = false;
beforeAll(async () => {
  dns = await startDnsServer({ ...fixtureZone(), "down.test": { servfail: true }, "*.down.test": { servfail: true } });
});
afterAll(async () => {
  if (!stopped) await dns?.close();
});
const ctx = useServerAndBrowser({ args: () => ["--dns-server", dns.address, "--dns-timeout", "300"] });

async function lookUp(page: Page, domain: string) {
  const input = page.getByPlaceholder("Enter domain (e.g., example.com)");
  await input.fill(domain);
  await input.press("Enter");
  await page.getByRole("heading", { name: domain }).waitFor();
  await page.getByRole("region", { name: "DKIM result" }).waitFor();
}

const badges = async (page: Page, name: string) => (await page.getByRole("region", { name: `${name} result` }).locator(".badge").allInnerTexts()).map((s) => s.trim());

describe("the DNS server does not answer", () => {
  test("domains: Check failed; lookup: Could not check, with no verdict — at 1280 and 375 px", async () => {
    const { page, errors } = await newPage(ctx.browser);
    await signUpViaApi(page, ctx.server.url, { name: "Dana Owner", password: "correct horse battery", organization: "Dana Dental" });
    for (const name of ["good.test", "down.test"]) {
      const added = await page.request.post(ctx.server.url + "/api/domains", { data: { name }, headers: { origin: ctx.server.url } });
      expect(added.status()).toBe(201);
    }
    // wait for the checks that run on add: good.test is checked, down.test's check fails
    let list: any[] = [];
    for (let i = 0; i < 200; i++) {
      list = await (await page.request.get(ctx.server.url + "/api/domains")).json();
      const good = list.find((d) => d.name === "good.test");
      const down = list.find((d) => d.name === "down.test");
      if (good.overallStatus !== "pending" && down.checkFailedAt) break;
      await Bun.sleep(50);
    }
    expect(list.find((d) => d.name === "good.test")).toMatchObject({ overallStatus: "protected", checkFailedAt: null });
    expect(list.find((d) => d.name === "down.test")).toMatchObject({ overallStatus: "pending", lastCheckedAt: null, checkFailedAt: expect.any(String) });

    for (const width of [1280, 375]) {
      await page.setViewportSize({ width, height: 900 });
      await page.goto(ctx.server.url + "/app/domains");
      const down = page.locator('[data-domain="down.test"], [data-domain-row="down.test"]').filter({ visible: true }).first();
      await down.getByText("Check failed").waitFor();
      expect(await down.innerText()).not.toMatch(/Vulnerable|Invalid/);
      const good = page.locator('[data-domain="good.test"], [data-domain-row="good.test"]').filter({ visible: true }).first();
      await good.getByText("Protected").first().waitFor();
      await shot(page, `dns-down-domains-${width}`);

      // the dashboard's Domain Status card says the same
      await page.goto(ctx.server.url + "/app/dashboard");
      const card = page.locator('[data-domain="down.test"], [data-domain-row="down.test"]').filter({ visible: true }).first();
      await card.getByText("Check failed").waitFor();
      await shot(page, `dns-down-dashboard-${width}`);

      await page.goto(ctx.server.url + "/app/dns");
      await page.getByRole("heading", { name: "DNS Lookup", level: 1 }).waitFor();
      await lookUp(page, "down.test");
      for (const name of ["DMARC", "SPF", "DKIM"]) expect(await badges(page, name)).toEqual(["Could not check"]);
      const results = page.locator('[aria-live="polite"]').first();
      const text = await results.innerText();
      expect(text).toContain("Could not check (DNS server did not answer)");
      expect(text).not.toMatch(/Invalid|Vulnerable|Not Found|No record found|Not set up/);
      await shot(page, `dns-down-lookup-${width}`);
    }

    // the DNS server stops answering altogether (timeouts): a name not asked before reads the same
    await dns.close();
    stopped = true;
    await page.setViewportSize({ width: 1280, height: 900 });
    await lookUp(page, "nopolicy.test");
    for (const name of ["DMARC", "SPF", "DKIM"]) expect(await badges(page, name)).toEqual(["Could not check"]);
    expect(await page.locator('[aria-live="polite"]').first().innerText()).not.toMatch(/Invalid|Vulnerable|Not Found/);
    await shot(page, "dns-down-stopped-1280");
    expect(errors).toEqual([]);
    await page.context().close();
  });
});
