import { describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import type { Page } from "playwright-core";
import { newPage } from "../support/browser";
import { useServerAndBrowser } from "../support/e2e";

const ctx = useServerAndBrowser();

/** Rows the running server has stored, read straight from its SQLite file. */
function storedSubmissions(): { name: string; email: string; request_type: string; is_read: number; submitted_at: number }[] {
  const db = new Database(ctx.server.dbPath, { readonly: true });
  try {
    return db.query("SELECT name, email, request_type, is_read, submitted_at FROM contact_submissions ORDER BY submitted_at").all() as any;
  } finally {
    db.close();
  }
}

async function open(path: string, width = 1280): Promise<{ page: Page; errors: string[] }> {
  const opened = await newPage(ctx.browser, { width });
  await opened.page.goto(ctx.server.url + path);
  return opened;
}

describe("public site in Chromium", () => {
  test.each([
    ["/", /Stop email spoofing/],
    ["/contact", /^Contact Us$/],
    ["/demo", /^Security Dashboard$/],
    ["/app", /^Security Dashboard$/],
    ["/onboarding/professional", /^Professional Firm Email Security Setup$/],
    ["/onboarding/healthcare", /^Healthcare Practice Email Security Setup$/],
    ["/onboarding/realestate", /^Real Estate Agency Email Security Setup$/],
  ])("%s renders its heading without errors and fits a 375 px phone", async (path, heading) => {
    for (const width of [1280, 375]) {
      const { page, errors } = await open(path, width);
      await page.getByRole("heading", { level: 1, name: heading }).waitFor();
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
      expect(errors).toEqual([]);
      await page.context().close();
    }
  });

  test.each([
    ["/", "Site", ["Sign In", "Start Free Trial"]],
    ["/contact", "Site", ["Back to Home", "Start Free Trial"]],
    ["/demo", "Demo", ["Back to Main Site", "Start 7 Day Free Trial"]],
    ["/app", "Demo", ["Back to Main Site", "Start 7 Day Free Trial"]],
  ] as const)("on a 375 px phone the %s header shows its full link texts", async (path, nav, labels) => {
    const { page, errors } = await open(path, 375);
    await page.getByRole("heading", { level: 1 }).first().waitFor();
    const header = page.getByRole("navigation", { name: nav, exact: true });
    for (const label of labels) {
      const action = header.getByRole(label === "Sign In" ? "button" : "link", { name: label, exact: true });
      expect(await action.isVisible()).toBe(true);
      expect((await action.innerText()).trim()).toBe(label);
      const box = (await action.boundingBox())!;
      expect(box.x).toBeGreaterThanOrEqual(0);
      expect(box.x + box.width).toBeLessThanOrEqual(375);
    }
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
    expect(errors).toEqual([]);
    await page.context().close();
  });

  test("contact page: invalid → field messages; valid → Message Sent, and the submission is stored unread", async () => {
    const before = storedSubmissions().length;
    const { page, errors } = await open("/contact");
    await page.getByRole("button", { name: "Send Message" }).click();
    for (const message of [
      "Name must be at least 2 characters",
      "Please enter a valid email address",
      "Company name is required",
      "Subject must be at least 5 characters",
      "Message must be at least 20 characters",
    ])
      await page.getByText(message).waitFor();
    expect(storedSubmissions()).toHaveLength(before);

    await page.getByLabel(/Full Name/).fill("Erin Castillo");
    await page.getByLabel(/Email Address/).fill("erin@castillo-dental.example");
    await page.getByLabel(/^Company/).fill("Castillo Dental");
    await page.getByLabel(/Request Type/).selectOption("sales");
    await page.getByLabel(/^Subject/).fill("Plan for three practices");
    await page.getByLabel(/^Message/).fill("We have three practice domains and want HIPAA-friendly monitoring.");
    await page.getByRole("button", { name: "Send Message" }).click();
    await page.getByRole("heading", { name: "Message Sent" }).waitFor();
    await page.getByTestId("toast").getByText("Message Sent Successfully").waitFor();
    expect(await page.getByRole("link", { name: "Return to Home" }).getAttribute("href")).toBe("/");

    const rows = storedSubmissions();
    expect(rows).toHaveLength(before + 1);
    expect(rows.at(-1)).toMatchObject({ name: "Erin Castillo", email: "erin@castillo-dental.example", request_type: "sales", is_read: 0 });
    expect(Math.abs(rows.at(-1)!.submitted_at - Date.now() / 1000)).toBeLessThan(120);
    expect(errors).toEqual([]);
    await page.context().close();
  });

  test("landing footer Support opens the dialog (request type support); sending shows Message Sent and the dialog closes", async () => {
    const before = storedSubmissions().length;
    const { page, errors } = await open("/");
    await page.getByRole("navigation", { name: "Help" }).getByRole("button", { name: "Support" }).click();
    const dialog = page.getByRole("dialog");
    await dialog.getByRole("heading", { name: "Send Us a Message" }).waitFor();
    expect(await dialog.getByLabel(/Request Type/).inputValue()).toBe("support");
    // Focus starts inside the dialog (Radix focus trap).
    expect(await page.evaluate(() => !!document.activeElement?.closest("[role=dialog]"))).toBe(true);
    await dialog.getByLabel(/Full Name/).fill("Sam Ortiz");
    await dialog.getByLabel(/Email Address/).fill("sam@ortiz.example");
    await dialog.getByLabel(/^Company/).fill("Ortiz Realty");
    await dialog.getByLabel(/^Subject/).fill("DKIM question");
    await dialog.getByLabel(/^Message/).fill("Our CRM asks for DKIM records; where do these go?");
    await dialog.getByRole("button", { name: "Send Message" }).click();
    await dialog.getByRole("heading", { name: "Message Sent" }).waitFor();
    await dialog.waitFor({ state: "detached", timeout: 10_000 });
    const rows = storedSubmissions();
    expect(rows).toHaveLength(before + 1);
    expect(rows.at(-1)).toMatchObject({ name: "Sam Ortiz", request_type: "support", is_read: 0 });
    expect(errors).toEqual([]);
    await page.context().close();
  });

  test("healthcare wizard from step 1 to Start Monitoring → /trial", async () => {
    const { page, errors } = await open("/onboarding/healthcare");
    const next = page.getByRole("button", { name: /Next/ });
    expect(await page.getByRole("button", { name: /Previous/ }).isDisabled()).toBe(true);
    expect(await next.isDisabled()).toBe(true);
    await page.getByLabel(/Practice Name/).fill("Riverside Clinic");
    await page.getByLabel(/Practice Domain/).fill("riverside-clinic.com");
    await page.getByLabel(/Administrator Email/).fill("admin@riverside-clinic.com");
    await next.click();
    await page.getByRole("heading", { level: 2, name: "Configure SPF Record" }).waitFor();
    await next.click();
    await page.getByRole("heading", { level: 2, name: "Enable DKIM Authentication" }).waitFor();
    await next.click();
    await page.getByRole("heading", { level: 2, name: "Set Up DMARC Policy" }).waitFor();
    expect(await page.getByTestId("dmarc-value").textContent()).toBe("v=DMARC1; p=none; rua=mailto:dmarc@riverside-clinic.com");
    await page.getByRole("link", { name: /Start Monitoring/ }).click();
    await page.waitForURL(ctx.server.url + "/trial");
    expect(errors).toEqual([]);
    await page.context().close();
  });

  test("demo: switching tabs shows the new tab; the threat list sorts by attempts and toggles on a second click", async () => {
    const { page, errors } = await open("/demo");
    await page.getByRole("heading", { level: 1, name: "Security Dashboard" }).waitFor();
    await page.getByRole("tab", { name: "Threats" }).click();
    await page.getByRole("heading", { level: 1, name: "Threat Map" }).waitFor();
    expect(await page.getByRole("tab", { name: "Threats" }).getAttribute("aria-selected")).toBe("true");

    const list = page.getByRole("list", { name: "Threats" });
    const counts = async () =>
      (await list.getByRole("listitem").evaluateAll((items) => items.map((li) => Number(li.querySelector(".tabular-nums")!.textContent!.replace(/,/g, ""))))) as number[];
    const initial = await counts();
    expect(initial).toEqual([...initial].sort((a, b) => b - a));
    await page.getByRole("button", { name: /Attempts/ }).click();
    const toggled = await counts();
    expect(toggled).toEqual([...initial].reverse());
    expect(await list.evaluate((el) => getComputedStyle(el).overflowY)).toBe("auto");
    expect(errors).toEqual([]);
    await page.context().close();
  });
});
