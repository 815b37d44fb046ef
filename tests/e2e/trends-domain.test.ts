/**
 * The seeded demo in the built executable, in Chromium: the dashboard chart shows the demo's 28
 * days with the numbers of /api/trends; a domain row opens the domain page, whose history shows
 * a DNS change made in the test DNS server after "Check now"; the CSV download has the right
 * rows. Set SHOTS_DIR to keep screenshots at 1280 and 375 px.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { newPage } from "../support/browser";
import { fixtureZone, startDnsServer, type TestDnsServer } from "../support/dns-server";
import { useServerAndBrowser, shot, signInAsDemoOwner, noOverflow } from "../support/e2e";

let dns: TestDnsServer;
beforeAll(async () => {
  dns = await startDnsServer(fixtureZone());
});
afterAll(() => dns?.close());
const ctx = useServerAndBrowser({ args: () => ["--seed-demo", "--dns-server", dns.address] });
const SHOTS = process.env.SHOTS_DIR;

/** CSV text → rows (RFC 4180: quoted fields, doubled quotes, CRLF). */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = "";
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') (field += '"'), i++;
      else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ",") row.push(field), (field = "");
    else if (c === "\r" && text[i + 1] === "\n") row.push(field), rows.push(row), (row = []), (field = ""), i++;
    else field += c;
  }
  return rows;
}

describe("trends, the domain page and the CSV export (seeded demo)", () => {
  test("the dashboard chart shows the demo's 28 days with the numbers of /api/trends, at 1280 and 375 px", async () => {
    const { page, errors } = await newPage(ctx.browser, { width: 1280, height: 900 });
    await signInAsDemoOwner(page, ctx.server);
    const api = await (await page.request.get(ctx.server.url + "/api/trends?days=30")).json();
    expect(api.days).toHaveLength(30);
    expect(api.days.filter((d: { messages: number }) => d.messages > 0)).toHaveLength(28);

    await page.goto(ctx.server.url + "/app/dashboard");
    await page.getByRole("region", { name: "Message Volume & DMARC Pass Rate" }).waitFor();
    await page.locator("g[data-day]").first().waitFor();
    const bars = await page.$$eval("g[data-day]", (gs) => gs.map((g) => ({ date: g.getAttribute("data-day"), messages: Number(g.getAttribute("data-messages")), failed: Number(g.getAttribute("data-failed")) })));
    expect(bars).toEqual(api.days.map((d: { date: string; messages: number; failed: number }) => ({ date: d.date, messages: d.messages, failed: d.failed })));
    expect(bars.filter((b) => b.messages > 0)).toHaveLength(28);
    // hovering a day shows its exact numbers
    const busy = api.days.find((d: { messages: number }) => d.messages > 0);
    await page.locator(`g[data-day="${busy.date}"]`).hover();
    await page.locator(`[data-tooltip-date="${busy.date}"]`).waitFor();
    await shot(page, "dashboard-trend-1280");

    // 7 days, then one domain
    await page.getByRole("button", { name: "7 days" }).click();
    await page.locator('[data-trend-days="7"]').waitFor();
    expect(await page.locator("g[data-day]").count()).toBe(7);
    await page.getByRole("combobox", { name: "Filter the chart by domain" }).selectOption("example.com");
    const one = await (await page.request.get(ctx.server.url + "/api/trends?days=7&domain=example.com")).json();
    await page.locator(`[data-trend-messages="${one.days.reduce((n: number, d: { messages: number }) => n + d.messages, 0)}"]`).waitFor();

    await page.setViewportSize({ width: 375, height: 800 });
    await page.reload();
    await page.locator("g[data-day]").first().waitFor();
    expect(await noOverflow(page)).toBeLessThanOrEqual(0);
    await shot(page, "dashboard-trend-375");
    expect(errors).toEqual([]);
    await page.context().close();
  }, 90_000);

  test("a domain row opens its page; a DNS change made in the DNS server shows in its history after Check now", async () => {
    const { page, errors } = await newPage(ctx.browser, { width: 1280, height: 900 });
    await signInAsDemoOwner(page, ctx.server);
    // the organisation asks DNS afresh on every check (Settings → DNS caching off), so a change shows at once
    const settings = await (await page.request.get(ctx.server.url + "/api/settings")).json();
    const fields = ["organizationName", "contactEmail", "emailNotifications", "dmarcRua", "dmarcRuf", "autoProcessReports", "cacheTtlSeconds", "realtimeThreatMonitoring", "complianceAlerts"];
    const saved = await page.request.put(ctx.server.url + "/api/settings", { data: { ...Object.fromEntries(fields.map((f) => [f, settings[f]])), dnsCaching: false }, headers: { origin: ctx.server.url } });
    expect(saved.status()).toBe(200);
    const added = await page.request.post(ctx.server.url + "/api/domains", { data: { name: "weak.test" }, headers: { origin: ctx.server.url } });
    expect(added.status()).toBe(201);

    await page.goto(ctx.server.url + "/app/domains");
    await page.locator('[data-domain-link="weak.test"]:visible').click();
    await page.getByRole("heading", { name: "weak.test", level: 1 }).waitFor();
    await page.getByRole("button", { name: "Check now" }).click();
    await page.locator("[data-history-entry]").first().waitFor();
    await page.getByRole("region", { name: "DMARC result" }).waitFor();

    const before = dns.zone["_dmarc.weak.test"];
    dns.zone["_dmarc.weak.test"] = { TXT: ["v=DMARC1; p=none; rua=mailto:dmarc@weak.test"] };
    try {
      await page.getByRole("button", { name: "Check now" }).click();
      const change = page.locator('[data-change="dmarc"]').filter({ hasText: "v=DMARC1; p=none; rua=mailto:dmarc@weak.test" });
      await change.waitFor();
      await expect(change.innerText()).resolves.toContain("v=DMARC1; p=reject");
    } finally {
      dns.zone["_dmarc.weak.test"] = before!;
    }
    const history = await (await page.request.get(page.url().replace("/app/domains/", "/api/domains/") + "/history")).json();
    expect(history.items[0].changes[0]).toMatchObject({ record: "dmarc", before: "v=DMARC1; p=reject", after: "v=DMARC1; p=none; rua=mailto:dmarc@weak.test", statusBefore: "reject", statusAfter: "none" });
    await shot(page, "domain-history-1280");
    await page.setViewportSize({ width: 375, height: 800 });
    await page.reload();
    await page.locator("[data-history-entry]").first().waitFor();
    expect(await noOverflow(page)).toBeLessThanOrEqual(0);
    await shot(page, "domain-history-375");
    expect(errors).toEqual([]);
    await page.context().close();
  }, 90_000);

  test("the dashboard's domain row opens the domain page with its trend and top sources; its CSV download has the right rows", async () => {
    const { page, errors } = await newPage(ctx.browser, { width: 1280, height: 900 });
    await signInAsDemoOwner(page, ctx.server);
    await page.goto(ctx.server.url + "/app/dashboard");
    await page.locator('[data-domain-link="example.com"]:visible').click();
    await page.getByRole("heading", { name: "example.com", level: 1 }).waitFor();
    await page.locator("g[data-day]").first().waitFor();
    await page.locator("tr[data-source-ip]").first().waitFor();
    await shot(page, "domain-page-1280");

    const [download] = await Promise.all([page.waitForEvent("download"), page.locator("[data-csv-download]").click()]);
    expect(download.suggestedFilename()).toMatch(/^dmarc-records-example\.com-\d{4}-\d{2}-\d{2}-to-\d{4}-\d{2}-\d{2}\.csv$/);
    const rows = parseCsv(readFileSync((await download.path())!, "utf8"));
    expect(rows[0]![0]).toBe("date_begin");
    const body = rows.slice(1);
    expect(body.length).toBeGreaterThan(0);
    expect(new Set(body.map((r) => r[4]))).toEqual(new Set(["example.com"]));
    // the records' messages add up to the roll-ups' total of the same 30 days
    const trend = await (await page.request.get(ctx.server.url + "/api/trends?days=30&domain=example.com")).json();
    const total = trend.days.reduce((n: number, d: { messages: number }) => n + d.messages, 0);
    expect(body.reduce((n, r) => n + Number(r[9]), 0)).toBe(total);

    await page.setViewportSize({ width: 375, height: 800 });
    await page.reload();
    await page.locator("g[data-day]").first().waitFor();
    expect(await noOverflow(page)).toBeLessThanOrEqual(0);
    await shot(page, "domain-page-375");
    expect(errors).toEqual([]);
    await page.context().close();
  }, 90_000);

  test("DMARC Reports pages through every report with Load more and narrows by filters; its CSV button downloads the records", async () => {
    const { page, errors } = await newPage(ctx.browser, { width: 1280, height: 900 });
    await signInAsDemoOwner(page, ctx.server);
    await page.goto(ctx.server.url + "/app/reports");
    const region = page.getByRole("region", { name: "Reports" });
    await region.getByText(/Showing 25 reports \(more to load\)/).waitFor();
    await page.getByRole("button", { name: "Load more" }).click();
    await region.getByText(/Showing 50 reports/).waitFor();
    await page.getByRole("combobox", { name: "Domain" }).selectOption("example.net");
    await page.getByRole("checkbox", { name: "Only with failures" }).check();
    await region.getByText(/Showing \d+ reports?/).waitFor();
    const shown = await region.locator("tbody tr").allInnerTexts();
    expect(shown.length).toBeGreaterThan(0);
    expect(shown.every((row) => row.includes("example.net"))).toBe(true);
    await shot(page, "reports-filters-1280");
    const [download] = await Promise.all([page.waitForEvent("download"), page.locator("[data-csv-download]").click()]);
    expect(download.suggestedFilename()).toMatch(/^dmarc-records-example\.net-/);
    await page.setViewportSize({ width: 375, height: 800 });
    await page.reload();
    await region.getByText(/Showing 25 reports/).waitFor();
    expect(await noOverflow(page)).toBeLessThanOrEqual(0);
    await shot(page, "reports-375");
    expect(errors).toEqual([]);
    await page.context().close();
  }, 90_000);
});
