/**
 * The first hour of a new customer, in the built executable and Chromium, at 1280 and 375 px:
 * the landing page's customer Log in → sign up → the dashboard's getting-started checklist (no
 * claim that an empty organization is secure) → add a domain → learn where its reports go
 * (the organization's own address, with the RFC 7489 §7.1 record) → publish DMARC and check →
 * the first report arrives over SMTP → the dashboard counts it exactly and ticks the steps.
 * A second server without the SMTP receiver offers the choice of a mailbox or uploading.
 * Set SHOTS_DIR to keep the screenshots.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import { launchBrowser, newPage } from "../support/browser";
import { startDnsServer, type TestDnsServer } from "../support/dns-server";
import { noOverflow, shot } from "../support/e2e";
import { freePort, startServer, type RunningServer } from "../support/server";
import { aggregateReportMail, sendMail } from "../support/smtp";

const DOMAIN = "firsthour.test";
/** the receiver-off server's domain: the first test publishes DMARC for DOMAIN in the shared DNS stand-in */
const OTHER = "harbor-dental.test";
const SMTP_DOMAIN = "reports.dw-firsthour.test";

let dns: TestDnsServer;
let server: RunningServer;
let plain: RunningServer;
let smtpPort: number;
let browser: Awaited<ReturnType<typeof launchBrowser>>;

beforeAll(async () => {
  dns = await startDnsServer({ [DOMAIN]: { TXT: ["v=spf1 ip4:192.0.2.0/24 -all"] }, [OTHER]: { TXT: ["v=spf1 ip4:192.0.2.0/24 -all"] } });
  smtpPort = await freePort();
  const common = ["--dns-server", dns.address, "--smtp-probe-port", "0", "--dns-check-interval", "0"];
  [server, plain] = await Promise.all([
    startServer({ args: [...common, "--smtp-port", String(smtpPort), "--smtp-host", "127.0.0.1", "--smtp-domain", SMTP_DOMAIN] }),
    startServer({ args: common }),
  ]);
  browser = await launchBrowser();
}, 180_000);
afterAll(async () => {
  await browser?.close();
  await Promise.all([server?.stop(), plain?.stop()]);
  await dns?.close();
});

const steps = (page: Page) => page.getByRole("list", { name: "Getting-started steps" });
const stepDone = (page: Page, key: string) => steps(page).locator(`[data-step="${key}"]`).getAttribute("data-done");

async function signUp(page: Page, base: string, email: string) {
  await page.goto(base + "/");
  // the customer's door, clearly apart from the administrator's Sign In
  await page.getByRole("navigation", { name: "Site" }).getByRole("link", { name: "Log in" }).click();
  await page.waitForURL("**/login");
  await page.getByRole("link", { name: "Create one" }).click();
  await page.waitForURL("**/signup");
  await page.getByLabel("Your name").fill("Grace Hopper");
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill("a long first-hour password");
  await page.getByLabel("Organization name").fill("Harbor Dental");
  await page.getByRole("button", { name: "Create account" }).click();
  await page.waitForURL("**/app**");
}

describe("the first hour (SMTP receiver on)", () => {
  test("sign up → add a domain → where reports go → publish → first report → dashboard, at 1280 and 375 px", async () => {
    const { page, errors } = await newPage(browser, { width: 1280, height: 900 });
    await signUp(page, server.url, "grace@harbor.test");
    await page.goto(server.url + "/app/dashboard");

    // a new organization: the checklist, and no claim that anything is secure or looks right
    await steps(page).waitFor();
    expect(await stepDone(page, "domain")).toBe("false");
    await page.getByText("No domain is monitored yet.", { exact: false }).first().waitFor();
    expect(await page.getByText("currently secure").count()).toBe(0);
    expect(await page.getByText("records look right").count()).toBe(0);
    const reportsCard = page.getByRole("group", { name: "Reports Processed" });
    expect(await reportsCard.locator("[data-exact-count]").innerText()).toBe("0 reports");
    await shot(page, "first-hour-1-new-dashboard-1280");

    // step 1: add the domain from the checklist
    await steps(page).getByRole("link", { name: /Add a domain/ }).click();
    await page.waitForURL("**/app/domains");
    // the form of the domains screen (the dashboard's lookup, still shown while the screen's code
    // loads, also has "example.com" in its placeholder)
    const addForm = page.getByRole("form", { name: "Add domain" });
    await addForm.getByPlaceholder("example.com", { exact: true }).fill(DOMAIN);
    await addForm.getByRole("button", { name: "Add Domain" }).click();
    await page.getByText(`${DOMAIN} was added`, { exact: false }).first().waitFor();

    // step 2: the checklist leads to where reports go, on the domain page
    await page.goto(server.url + "/app/dashboard");
    await steps(page).locator('[data-step="domain"][data-done="true"]').waitFor();
    await steps(page).getByRole("link", { name: /Where reports go/ }).click();
    await page.waitForURL(/\/app\/domains\/[^/]+#report-path$/);
    const where = page.getByRole("region", { name: "Where reports go" });
    await where.locator('[data-report-path="receiver"]').waitFor();
    const rua = await where.getByTestId("rua-receiver").innerText();
    expect(rua).toMatch(new RegExp(`^mailto:[a-z0-9]+@${SMTP_DOMAIN.replace(/\./g, "\\.")}$`));
    expect(await where.getByTestId("external-record").innerText()).toBe(`${DOMAIN}._report._dmarc.${SMTP_DOMAIN} TXT "v=DMARC1"`);
    await where.scrollIntoViewIfNeeded();
    await shot(page, "first-hour-2-where-reports-go-1280");

    // the task says the same address
    const tasks = await (await page.request.get(server.url + "/api/tasks")).json();
    expect(tasks.find((t: { title: string }) => t.title === `Publish a DMARC record for ${DOMAIN}`).description).toContain(`rua=${rua}`);

    // publish it (the test DNS server stands for the customer's DNS) and check now: the check asks
    // afresh, although the first check's "no record" is still in the server's DNS cache
    dns.zone[`_dmarc.${DOMAIN}`] = { TXT: [`v=DMARC1; p=none; rua=${rua}`] };
    await page.getByRole("button", { name: "Check now" }).click();
    await page.getByRole("button", { name: "Check now" }).waitFor();
    let onboarding: { steps: { key: string; done: boolean }[] } = { steps: [] };
    for (let i = 0; i < 50 && !onboarding.steps.find((s) => s.key === "dmarc")?.done; i++) {
      await Bun.sleep(200);
      onboarding = await (await page.request.get(server.url + "/api/onboarding")).json();
    }
    expect(onboarding.steps.find((s) => s.key === "dmarc")?.done).toBe(true);

    // the first report, mailed by a provider to the organization's address
    const address = rua.slice("mailto:".length);
    const sent = await sendMail(smtpPort, { from: "noreply-dmarc-support@google.com", to: [address] }, aggregateReportMail({ domain: DOMAIN, reportId: "first-hour-1", begin: Math.floor(Date.now() / 86_400_000 - 1) * 86_400 }));
    expect(sent.response).toContain("250");

    // the dashboard: the first steps ticked, the one report counted exactly
    await page.goto(server.url + "/app/dashboard");
    await steps(page).locator('[data-step="report"][data-done="true"]').waitFor();
    expect(await stepDone(page, "domain")).toBe("true");
    expect(await stepDone(page, "dmarc")).toBe("true");
    expect(await reportsCard.locator("[data-exact-count]").innerText()).toBe("1 report");
    expect(await reportsCard.innerText()).toContain("0.0K");
    // 12 of the report's 15 messages passed: step 4 says so and stays open
    expect(await steps(page).locator('[data-step="sources"]').innerText()).toContain("80% of 15 messages passed DMARC in the last 30 days");
    expect(await stepDone(page, "sources")).toBe("false");
    await page.getByRole("list", { name: "Reports" }).getByText("google.com").waitFor();
    expect(await noOverflow(page)).toBeLessThanOrEqual(0);
    await shot(page, "first-hour-3-first-report-1280");

    await page.setViewportSize({ width: 375, height: 800 });
    await page.reload();
    await steps(page).waitFor();
    expect(await noOverflow(page)).toBeLessThanOrEqual(0);
    await shot(page, "first-hour-3-first-report-375");
    const domainId = (await (await page.request.get(server.url + "/api/domains")).json())[0].id;
    await page.goto(`${server.url}/app/domains/${domainId}#report-path`);
    await page.getByRole("region", { name: "Where reports go" }).locator('[data-report-path="receiver"]').waitFor();
    // opened at #report-path, the panel is brought into view on a phone too
    await page.waitForFunction(() => {
      const top = document.getElementById("report-path")?.getBoundingClientRect().top;
      return top !== undefined && top >= 0 && top < window.innerHeight / 2;
    });
    expect(await noOverflow(page)).toBeLessThanOrEqual(0);
    await shot(page, "first-hour-2-where-reports-go-375");
    if (process.env.SHOTS_DIR) await page.getByRole("region", { name: "Where reports go" }).screenshot({ path: `${process.env.SHOTS_DIR}/first-hour-where-reports-go-panel-375.png` });

    // signed in, a setup wizard's last step publishes the organization's own report address too
    await page.goto(server.url + "/onboarding/healthcare");
    await page.getByLabel(/Practice Name/).fill("Harbor Dental");
    await page.getByLabel(/Practice Domain/).fill(DOMAIN);
    await page.getByLabel(/Administrator Email/).fill("grace@harbor.test");
    for (let i = 0; i < 3; i++) await page.getByRole("button", { name: /Next/ }).click();
    await page.locator("[data-wizard-report-path]").waitFor();
    expect(await page.getByTestId("dmarc-value").innerText()).toBe(`v=DMARC1; p=none; rua=${rua}`);
    expect(await noOverflow(page)).toBeLessThanOrEqual(0);
    await shot(page, "first-hour-wizard-step4-375");
    expect(errors).toEqual([]);
    await page.context().close();
  }, 120_000);
});

describe("the first hour (SMTP receiver off)", () => {
  test("the domain page offers connecting a mailbox or uploading, each with its rua; the landing header fits at 375 px", async () => {
    const { page, errors } = await newPage(browser, { width: 375, height: 800 });
    await page.goto(plain.url + "/");
    const nav = page.getByRole("navigation", { name: "Site" });
    await nav.getByRole("link", { name: "Log in", exact: true }).waitFor();
    for (const name of ["Log in", "Start Free Trial"]) expect(await nav.getByRole("link", { name, exact: true }).isVisible()).toBe(true);
    expect(await nav.getByRole("button", { name: "Sign In", exact: true }).isVisible()).toBe(true);
    expect(await noOverflow(page)).toBeLessThanOrEqual(0);
    await shot(page, "first-hour-landing-375");
    if (process.env.SHOTS_DIR) await page.locator("header").first().screenshot({ path: `${process.env.SHOTS_DIR}/first-hour-landing-header-375.png` });

    await signUp(page, plain.url, "ada@harbor.test");
    const added = await page.request.post(plain.url + "/api/domains", { data: { name: OTHER }, headers: { origin: plain.url } });
    expect(added.status()).toBe(201);
    const { id } = await added.json();
    await page.goto(`${plain.url}/app/domains/${id}#report-path`);
    const where = page.getByRole("region", { name: "Where reports go" });
    await where.locator('[data-report-path="choice"]').waitFor();
    expect(await where.getByTestId("rua-mailbox").innerText()).toBe(`mailto:dmarc@${OTHER}`);
    expect(await where.getByTestId("rua-upload").innerText()).toBe(`mailto:dmarc@${OTHER}`);
    expect(await where.getByRole("link", { name: "Settings › Report mail" }).getAttribute("href")).toBe("/app/settings#report-mail");
    expect(await noOverflow(page)).toBeLessThanOrEqual(0);
    await where.scrollIntoViewIfNeeded();
    await shot(page, "first-hour-receiver-off-375");
    if (process.env.SHOTS_DIR) await where.screenshot({ path: `${process.env.SHOTS_DIR}/first-hour-receiver-off-panel-375.png` });

    // the first DNS check of the domain runs after it is added: its task says how reports can reach dmarcwarden
    let tasks: { title: string; description: string }[] = [];
    for (let i = 0; i < 100 && !tasks.some((t) => t.title === `Publish a DMARC record for ${OTHER}`); i++) {
      await Bun.sleep(200);
      tasks = await (await page.request.get(plain.url + "/api/tasks")).json();
    }
    expect(tasks.find((t) => t.title === `Publish a DMARC record for ${OTHER}`)?.description).toContain("connect it under Settings › Report mail (IMAP), or read it yourself and upload the reports");
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.goto(plain.url + "/app/tasks");
    await page.getByText("This server does not receive report mail itself", { exact: false }).first().waitFor();
    await shot(page, "first-hour-receiver-off-tasks-1280");

    // Settings › Report mail offers the same two ways, for the organization's domain
    await page.goto(plain.url + "/app/settings#report-mail");
    const reportMail = page.locator("#report-mail");
    await reportMail.locator('[data-report-path="choice"]').waitFor();
    expect(await reportMail.getByTestId("rua-mailbox").innerText()).toBe(`mailto:dmarc@${OTHER}`);
    if (process.env.SHOTS_DIR) await reportMail.screenshot({ path: `${process.env.SHOTS_DIR}/first-hour-settings-report-mail-1280.png` });
    expect(errors).toEqual([]);
    await page.context().close();
  }, 120_000);
});
