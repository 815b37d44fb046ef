import { describe, expect, test } from "bun:test";
import { newPage } from "../support/browser";
import { signUpViaApi, useServerAndBrowser } from "../support/e2e";
import { gzip, sampleAggregate, xmlBytes } from "../support/report-fixtures";

const ctx = useServerAndBrowser();

describe("DMARC Reports screen", () => {
  test("a member uploads a gzip'd report on /app/reports and sees it listed and opens it", async () => {
    const { page, errors } = await newPage(ctx.browser);
    await signUpViaApi(page, ctx.server.url, { name: "Report Uploader", email: "reports-e2e@example.test", password: "reports e2e password 1", organization: "Reports E2E" });
    expect((await page.request.post(ctx.server.url + "/api/domains", { data: { name: "example.com" }, headers: { origin: ctx.server.url } })).status()).toBe(201);

    await page.goto(ctx.server.url + "/app/reports");
    await page.getByText("No reports available").waitFor();

    const report = sampleAggregate("example.com", { reportId: "e2e-1", orgName: "google.com" });
    await page.getByLabel("Report files").setInputFiles([
      { name: "google.com!example.com!1704067200!1704153599.xml.gz", mimeType: "application/gzip", buffer: Buffer.from(gzip(xmlBytes(report))) },
      { name: "notes.txt", mimeType: "text/plain", buffer: Buffer.from("not a report") },
    ]);
    const results = page.getByRole("list", { name: "Upload results" });
    await results.getByText("Ingested").waitFor();
    await results.getByText("Refused").waitFor();
    expect(await results.textContent()).toContain("This file is not a report");

    const row = page.getByRole("row", { name: /google\.com/ });
    await row.waitFor();
    expect(await row.textContent()).toContain("80.0%");
    await row.getByRole("button", { name: "google.com" }).click();
    await page.getByText("209.85.220.41").waitFor();
    expect(page.url()).toContain("?report=");
    expect(await page.getByRole("table").textContent()).toContain("198.51.100.7");
    expect(errors).toEqual([]);
    await page.context().close();
  });
});
