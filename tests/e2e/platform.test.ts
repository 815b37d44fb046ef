/**
 * Audit log, retention, metrics and the API docs against the built executable in Chromium: an
 * owner adds a domain and changes the retention in Settings; the Audit log section shows both
 * with the address they came from; /api/docs renders the OpenAPI document under the app's CSP;
 * /metrics answers only with its token and counts the requests by route pattern.
 * With DW_SHOTS=<dir> the screens are saved at 1280 and 375 px.
 */
import { describe, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import { newPage } from "../support/browser";
import { signUpViaApi, useServerAndBrowser } from "../support/e2e";

const TOKEN = "e2e-metrics-token-0123456789";
const ctx = useServerAndBrowser({ args: ["--metrics-token", TOKEN] });
const SHOTS = process.env.DW_SHOTS;
const shot = async (page: Page, name: string) => {
  if (SHOTS) await page.screenshot({ path: `${SHOTS}/${name}.png`, fullPage: true });
};

describe("audit log, retention, metrics, API docs", () => {
  test("retention saved in Settings and a new domain show in the audit log; fits at 375 px", async () => {
    const base = ctx.server.url;
    const { page, errors } = await newPage(ctx.browser);
    await signUpViaApi(page, base);
    const added = await page.request.post(base + "/api/domains", { data: { name: "audit-e2e.example" }, headers: { origin: base } });
    expect(added.status()).toBe(201);

    await page.goto(base + "/app/settings");
    const form = page.getByRole("form", { name: "Organization settings" });
    const keep = form.getByLabel("Keep aggregate reports (days)");
    await expect(keep.inputValue()).resolves.toBe("400");
    // below the minimum: the field says why
    await keep.fill("10");
    await form.getByRole("button", { name: "Save Settings" }).click();
    await form.getByText("Keep aggregate reports 30 to 3650 days").waitFor();
    await keep.fill("200");
    await form.getByLabel("Keep failure reports (days)").fill("30");
    await form.getByRole("button", { name: "Save Settings" }).click();
    await page.getByText("Settings Saved").first().waitFor();

    const audit = page.getByRole("region", { name: "Audit log" });
    await audit.scrollIntoViewIfNeeded();
    const records = audit.getByRole("list", { name: "Audit records" });
    await records.getByText("Retention changed").waitFor();
    await records.getByText("Domain added").waitFor();
    await expect(records.getByText(/Aggregate reports kept \(days\): 400 → 200/).count()).resolves.toBe(1);
    await expect(records.getByText(/from 127\.0\.0\.1|from ::1|from ::ffff:127\.0\.0\.1/).count()).resolves.toBeGreaterThan(0);
    await audit.getByLabel("Action").selectOption("domain.added");
    await records.getByText(/audit-e2e\.example/).waitFor();
    await expect(records.getByText("Retention changed").count()).resolves.toBe(0);
    await audit.getByLabel("Action").selectOption("");
    await records.getByText("Retention changed").waitFor();
    await shot(page, "settings-audit-1280");
    if (SHOTS) await audit.screenshot({ path: `${SHOTS}/audit-section-1280.png` });
    if (SHOTS) await form.getByText("Data retention").locator("..").screenshot({ path: `${SHOTS}/retention-1280.png` });

    await page.setViewportSize({ width: 375, height: 800 });
    await records.getByText("Retention changed").waitFor();
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    await shot(page, "settings-audit-375");
    if (SHOTS) await audit.screenshot({ path: `${SHOTS}/audit-section-375.png` });
    expect(errors).toEqual([]);
  });

  test("/api/docs renders every endpoint from the server's own assets", async () => {
    const base = ctx.server.url;
    const { page, errors } = await newPage(ctx.browser);
    const blocked: string[] = [];
    page.on("console", (m) => {
      if (m.type() === "error" && !m.text().startsWith("Failed to load resource")) blocked.push(m.text());
    });
    page.on("response", (r) => {
      if (r.status() >= 400 && !r.url().endsWith("/favicon.ico")) blocked.push(`${r.status()} ${r.url()}`);
    });
    const external: string[] = [];
    page.on("request", (r) => {
      if (!r.url().startsWith(base)) external.push(r.url());
    });
    await page.goto(base + "/api/docs");
    await page.getByText("OpenAPI 3.1.0").waitFor();
    const doc = await (await page.request.get(base + "/api/openapi.json")).json();
    const operations = Object.values(doc.paths).reduce((n: number, item: any) => n + Object.keys(item).length, 0);
    await expect(page.locator("details").count()).resolves.toBe(operations);
    await page.getByLabel("Filter").fill("/api/audit");
    await page.locator("details:visible").first().click();
    await page.getByText("permission `audit:read`", { exact: false }).first().waitFor();
    await shot(page, "api-docs-1280");
    await page.setViewportSize({ width: 375, height: 800 });
    await shot(page, "api-docs-375");
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    expect(external).toEqual([]);
    expect(blocked).toEqual([]);
    expect(errors).toEqual([]);
  });

  test("/metrics needs its token and counts requests by route pattern", async () => {
    const base = ctx.server.url;
    expect((await fetch(base + "/metrics")).status).toBe(401);
    const res = await fetch(base + "/metrics", { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/plain; version=0.0.4; charset=utf-8");
    const text = await res.text();
    expect(text).toMatch(/^dmarcwarden_http_requests_total\{method="POST",route="\/api\/domains",status="201"\} 1$/m);
    expect(text).toMatch(/^dmarcwarden_database_size_bytes\{dialect="sqlite"\} [1-9]\d*$/m);
    expect(text).not.toContain("audit-e2e.example");
  });
});
