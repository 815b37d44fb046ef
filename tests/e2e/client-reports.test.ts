/**
 * The Client report dialog of the portfolio in Chromium on the built executable: an MSP owner
 * opens a client's report settings, a bad address is refused inline with what to fix, a good
 * list is saved with the switch on and comes back when the dialog opens again; at 1280 and
 * 375 px, light and dark, nothing scrolls sideways. SHOTS_DIR keeps screenshots.
 */
import { describe, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import { newPage } from "../support/browser";
import { noOverflow, shot, signUpViaApi, useServerAndBrowser } from "../support/e2e";

const ctx = useServerAndBrowser();

async function mspWithClients(page: Page, email: string) {
  await signUpViaApi(page, ctx.server.url, { name: "Mia Partner", email, password: "portfolio password 1", organization: "Northwind IT" });
  const res = await page.request.post(ctx.server.url + "/api/portfolio/import", { data: { csv: "Acme Dental, acmedental.test\nBaker Law, bakerlaw.test", dryRun: false }, headers: { origin: ctx.server.url } });
  expect(res.status()).toBe(200);
}

async function openReport(page: Page, client: string) {
  await page.getByRole("button", { name: `Client report of ${client}` }).first().click();
  const dialog = page.getByRole("dialog", { name: "Client report" });
  await dialog.getByRole("textbox", { name: "Contacts" }).waitFor();
  return dialog;
}

describe("Client report dialog", () => {
  for (const [width, scheme] of [
    [1280, "light"],
    [375, "dark"],
  ] as const) {
    test(`at ${width} px (${scheme}): refused inline, saved, shown again`, async () => {
      const { page, errors } = await newPage(ctx.browser, { width, height: 900 });
      await page.emulateMedia({ colorScheme: scheme });
      await mspWithClients(page, `mia-report-${width}-${Date.now()}@northwind.test`);
      await page.goto(ctx.server.url + "/app/portfolio");
      await page.getByRole("heading", { name: "Portfolio", level: 1 }).waitFor();
      await page.getByRole("button", { name: "Client report of Acme Dental" }).first().waitFor();
      expect(await noOverflow(page)).toBe(0);
      await shot(page, `client-report-table-${width}-${scheme}`);

      let dialog = await openReport(page, "Acme Dental");
      expect(await dialog.getByText("Never").count()).toBe(1);
      await dialog.getByRole("textbox", { name: "Contacts" }).fill("office@acmedental.test\nnot-an-address");
      await dialog.getByRole("checkbox", { name: /Send the weekly report to these contacts/ }).check();
      await dialog.getByRole("button", { name: "Save" }).click();
      const alert = dialog.getByRole("alert");
      await alert.waitFor();
      expect(await alert.textContent()).toContain('"not-an-address" is not a valid email address');
      expect(await noOverflow(page)).toBe(0);
      await shot(page, `client-report-error-${width}-${scheme}`);

      await dialog.getByRole("textbox", { name: "Contacts" }).fill("office@acmedental.test\nDr.Smith@AcmeDental.test");
      await dialog.getByRole("button", { name: "Save" }).click();
      await dialog.waitFor({ state: "detached" });
      // the saved toast is on screen before the dialog opens again: a toast that mounts later would be
      // the top layer and take the Escape below
      await page.getByText("Client report saved").first().waitFor();

      dialog = await openReport(page, "Acme Dental");
      expect(await dialog.getByRole("textbox", { name: "Contacts" }).inputValue()).toBe("office@acmedental.test\ndr.smith@acmedental.test");
      expect(await dialog.getByRole("checkbox", { name: /Send the weekly report/ }).isChecked()).toBe(true);
      expect(await noOverflow(page)).toBe(0);
      await shot(page, `client-report-${width}-${scheme}`);
      // the other client has its own (empty) list
      await page.keyboard.press("Escape");
      await dialog.waitFor({ state: "detached" });
      dialog = await openReport(page, "Baker Law");
      expect(await dialog.getByRole("textbox", { name: "Contacts" }).inputValue()).toBe("");
      expect(errors).toEqual([]);
    });
  }
});
