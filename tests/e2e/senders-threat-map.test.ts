/**
 * The seeded demo in the built executable, in Chromium: the threat map shades the countries
 * the data has failing mail from, and a failing sender opened from the Senders view can be
 * approved, which changes its verdict there and on its page. Set SHOTS_DIR to keep
 * screenshots at 1280 and 375 px.
 */
import { describe, expect, test } from "bun:test";
import { newPage } from "../support/browser";
import { useServerAndBrowser, shot, signInAsDemoOwner, noOverflow } from "../support/e2e";

const ctx = useServerAndBrowser({ args: ["--seed-demo"] });
const SHOTS = process.env.SHOTS_DIR;

describe("threat map and sender drill-down (seeded demo)", () => {
  test("the map shades exactly the countries with failing mail, for each range", async () => {
    const { page, errors } = await newPage(ctx.browser, { width: 1280, height: 900 });
    await signInAsDemoOwner(page, ctx.server);
    await page.goto(ctx.server.url + "/app/threats");
    await page.getByRole("heading", { name: "Threat Map", level: 1 }).waitFor();
    await page.getByRole("button", { name: "Last 24h" }).waitFor();
    await page.getByRole("button", { name: "30 days" }).click();
    const month = await (await page.request.get(ctx.server.url + "/api/threats/countries?range=30d")).json();
    const codes = Object.keys(month.counts);
    expect(codes.length).toBeGreaterThan(0);
    await page.locator("path[data-count]").first().waitFor();
    const shaded = await page.$$eval("path[data-country]", (paths) =>
      paths.map((p) => ({ code: p.getAttribute("data-country"), count: p.getAttribute("data-count"), fill: getComputedStyle(p).fill })),
    );
    const empty = shaded.find((s) => !s.count)!.fill;
    const withCount = shaded.filter((s) => s.count);
    // every country of the data that has a shape is shaded with its count, in a colour other than empty land
    const onMap = new Set(shaded.map((s) => s.code));
    expect(withCount.map((s) => s.code).sort()).toEqual(codes.filter((c) => onMap.has(c)).sort());
    for (const s of withCount) {
      expect(Number(s.count)).toBe(month.counts[s.code!]);
      expect(s.fill).not.toBe(empty);
    }
    // hovering a shaded country shows its tooltip
    await page.locator(`path[data-country="${withCount[0]!.code}"]`).hover();
    await page.locator(`[data-tooltip-country="${withCount[0]!.code}"]`).waitFor();
    await shot(page, "threat-map-30d-1280");
    await page.getByRole("button", { name: "Last 24h" }).click();
    await page.getByText(/reported for today and yesterday|No failing mail reported for today and yesterday/).waitFor();
    await shot(page, "threat-map-24h-1280");
    expect(errors).toEqual([]);
    await page.context().close();
  }, 60_000);

  test("a failing sender opens its page and can be approved: its verdict changes on the page and in the Senders view", async () => {
    const { page, errors } = await newPage(ctx.browser, { width: 1280, height: 900 });
    await signInAsDemoOwner(page, ctx.server);
    await page.goto(ctx.server.url + "/app/reports?tab=senders");
    const failing = page.locator('tr[data-verdict="failing"][data-sender^="service:"]').first();
    await failing.waitFor();
    const key = (await failing.getAttribute("data-sender"))!;
    const name = key.slice("service:".length);
    await failing.getByRole("link", { name }).click();
    await page.getByRole("heading", { name, level: 1 }).waitFor();
    await page.locator('[data-verdict="failing"]').waitFor();
    await page.locator("tr[data-ip]").first().waitFor();
    await page.locator("[data-sample]").first().waitFor();
    await page.getByRole("figure").first().waitFor();
    await shot(page, "sender-failing-1280");

    await page.getByRole("button", { name: /Approve — it's ours/ }).click();
    await page.locator('[data-verdict="setup"]').waitFor();
    await page.getByText("Yours, not set up yet", { exact: false }).first().waitFor();
    await page.getByRole("button", { name: /Remove mark/ }).waitFor();
    await shot(page, "sender-approved-1280");

    await page.getByRole("link", { name: "Senders" }).click();
    // the list may show its cached rows for a moment while it refetches after the mark
    const row = page.locator(`tr[data-sender="${key}"][data-verdict="setup"]`);
    await row.waitFor();
    expect(await row.getAttribute("data-verdict")).toBe("setup");
    await row.getByText("Approved", { exact: true }).waitFor();
    // the mark is stored: a fresh load shows it too
    const detail = await (await page.request.get(`${ctx.server.url}/api/senders/${encodeURIComponent(key)}`)).json();
    expect(detail.mark).toBe("approved");
    expect(errors).toEqual([]);
    await page.context().close();
  }, 60_000);

  test("on a phone (375 px) the map and the sender page fit the screen", async () => {
    const { page, errors } = await newPage(ctx.browser, { width: 375, height: 812 });
    await signInAsDemoOwner(page, ctx.server);
    await page.goto(ctx.server.url + "/app/threats");
    await page.getByRole("button", { name: "30 days" }).click();
    await page.locator("path[data-count]").first().waitFor();
    expect(await noOverflow(page)).toBeLessThanOrEqual(0);
    await shot(page, "threat-map-375");
    await page.goto(ctx.server.url + "/app/reports?tab=senders");
    const first = page.locator("tr[data-sender]").first();
    await first.waitFor();
    await first.getByRole("link").click();
    await page.locator("tr[data-ip]").first().waitFor();
    await page.getByRole("figure").first().waitFor();
    expect(await noOverflow(page)).toBeLessThanOrEqual(0);
    await shot(page, "sender-375");
    expect(errors).toEqual([]);
    await page.context().close();
  }, 60_000);
});
