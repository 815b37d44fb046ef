/**
 * Readiness on the built executable in Chromium: the seeded demo's example.org (p=none in the
 * test DNS server) shows its readiness panel on the domain page with the blocker the reports
 * and the live DNS give (Mailchimp Transactional signing with its own domain), the projection
 * of /api/domains/:id/enforcement, the sources explained and the SPF terms used; it fits at
 * 1280 and 375 px. Set SHOTS_DIR to keep the screenshots.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { newPage } from "../support/browser";
import { fixtureZone, startDnsServer, type TestDnsServer } from "../support/dns-server";
import { useServerAndBrowser, shot, signInAsDemoOwner, noOverflow } from "../support/e2e";

let dns: TestDnsServer;
beforeAll(async () => {
  dns = await startDnsServer({
    ...fixtureZone(),
    "example.org": { TXT: ["v=spf1 include:_spf.google.test include:spf.outlook.test include:old-newsletter.test ~all"] },
    "_dmarc.example.org": { TXT: ["v=DMARC1; p=none; rua=mailto:dmarc@example.org"] },
    "_spf.google.test": { TXT: ["v=spf1 ip4:209.85.128.0/17 ~all"] },
    "spf.outlook.test": { TXT: ["v=spf1 ip4:40.92.0.0/15 ip4:40.107.0.0/16 -all"] },
    "old-newsletter.test": { TXT: ["v=spf1 ip4:192.0.2.0/24 -all"] },
  });
});
afterAll(() => dns?.close());
const ctx = useServerAndBrowser({ args: () => ["--seed-demo", "--dns-server", dns.address] });
const SHOTS = process.env.SHOTS_DIR;

describe("readiness on the domain page (seeded demo)", () => {
  test("the panel shows the stage, the blocker with its fix, the projection, the explained sources and the SPF terms used, at 1280 and 375 px", async () => {
    const { page, errors } = await newPage(ctx.browser, { width: 1280, height: 900 });
    await signInAsDemoOwner(page, ctx.server);
    const list = await (await page.request.get(ctx.server.url + "/api/domains")).json();
    const domain = (list.domains ?? list).find((d: { name: string }) => d.name === "example.org");
    expect(domain).toBeTruthy();
    const api = await (await page.request.get(`${ctx.server.url}/api/domains/${domain.id}/enforcement`)).json();
    expect(api).toMatchObject({ stage: "none", nextStage: "quarantine", ready: false });
    expect(api.blockers.map((b: { source: string }) => b.source)).toContain("Mailchimp Transactional");
    const mandrill = api.blockers.find((b: { source: string }) => b.source === "Mailchimp Transactional");
    expect(mandrill.fix).toContain("custom-domain signing for example.org");

    await page.goto(`${ctx.server.url}/app/domains/${domain.id}`);
    const panel = page.getByRole("region", { name: "Readiness for p=reject" });
    await panel.waitFor();
    await panel.locator('[data-stage="none"][data-next-stage="quarantine"]').waitFor();
    await panel.locator('[data-blocker="Mailchimp Transactional"]').waitFor();
    expect(await panel.locator('[data-projection="yours"]').innerText()).toBe(api.projection.yoursUnauthenticated.toLocaleString("en-US"));
    expect(await panel.locator('[data-projection="not-yours"]').innerText()).toBe(api.projection.notYours.toLocaleString("en-US"));
    expect(await panel.locator('[data-blocker="Mailchimp Transactional"]').innerText()).toContain("turn on custom-domain signing");

    // the sources explained, and the SPF terms used and unused
    const sources = page.getByRole("region", { name: "Sources: explain and fix (30 days)" });
    await sources.locator('[data-explained-source="198.2.180.12"]').waitFor();
    const usage = page.getByRole("region", { name: "SPF that is used (30 days)" });
    await usage.locator('[data-spf-term="include:old-newsletter.test"][data-used="no"]').waitFor();
    await usage.locator('[data-spf-term="include:_spf.google.test"][data-used="yes"]').waitFor();
    await panel.scrollIntoViewIfNeeded();
    await shot(page, "readiness-1280");

    // opening a source shows its SPF and DKIM explanation
    await sources.locator('[data-explained-source="198.2.180.12"] summary').click();
    await sources.getByText("d=mandrillapp.com, s=k1: pass").waitFor();

    await page.setViewportSize({ width: 375, height: 800 });
    await panel.waitFor();
    expect(await noOverflow(page)).toBeLessThanOrEqual(0);
    await shot(page, "readiness-375");
    if (SHOTS) {
      await panel.screenshot({ path: join(SHOTS, "readiness-panel-375.png") });
      await sources.screenshot({ path: join(SHOTS, "sources-panel-375.png") });
      await usage.screenshot({ path: join(SHOTS, "spf-usage-panel-375.png") });
    }
    expect(errors).toEqual([]);
  });

  test("signed in, the wizard's last step says monitoring has started and opens the domain's readiness panel", async () => {
    const { page, errors } = await newPage(ctx.browser, { width: 375, height: 800 });
    await signInAsDemoOwner(page, ctx.server);
    await page.goto(ctx.server.url + "/onboarding/professional");
    await page.getByLabel(/Firm Name/).fill("Example Org");
    await page.getByLabel(/Firm Domain/).fill("example.org");
    await page.getByLabel(/Email Address/).fill("it@example.org");
    for (let i = 0; i < 3; i++) await page.getByRole("button", { name: /Next/ }).click();
    await page.getByText("Monitoring has started; protection comes next").waitFor();
    const link = page.getByRole("link", { name: "Open the readiness panel of example.org" });
    await link.scrollIntoViewIfNeeded();
    await shot(page, "wizard-step4-375");
    expect(await noOverflow(page)).toBeLessThanOrEqual(0);
    await link.click();
    await page.getByRole("region", { name: "Readiness for p=reject" }).locator('[data-blocker="Mailchimp Transactional"]').waitFor();
    expect(page.url()).toEndWith("#readiness");
    expect(errors).toEqual([]);
  });
});
