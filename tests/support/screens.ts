/**
 * Every screen of the product for the accessibility and layout checks: the public pages, the
 * sign-in screens, each signed-in screen on the seeded demo organization, and the Master
 * Administrator Console with contact submissions in it.
 */
import { expect } from "bun:test";
import type { Browser, BrowserContext, Page } from "playwright-core";
import type { RunningServer } from "./server";

export const ADMIN = { username: "warden", password: "screens-admin-pass" };
/** serve flags for these checks: the demo organization (real domains, reports, threats) and an administrator. */
export const SCREENS_SERVER_ARGS = ["--seed-demo", "--seed-admin", `${ADMIN.username}:${ADMIN.password}`];

export interface Screen {
  path: string;
  /** who looks at it */
  as: "visitor" | "member";
  /** something on the screen that shows it has loaded */
  ready: (page: Page) => Promise<unknown>;
}

const heading = (name: string | RegExp) => (page: Page) => page.getByRole("heading", { name, level: 1 }).first().waitFor({ timeout: 15_000 });

export function screens(ids: { domainId: string; senderKey: string }): Screen[] {
  return [
    { path: "/", as: "visitor", ready: (p) => p.getByRole("link", { name: /Live Demo/ }).first().waitFor({ timeout: 15_000 }) },
    { path: "/demo", as: "visitor", ready: heading("Security Dashboard") },
    { path: "/trial", as: "visitor", ready: (p) => p.getByRole("heading").first().waitFor({ timeout: 15_000 }) },
    { path: "/contact", as: "visitor", ready: (p) => p.getByRole("button", { name: "Send Message" }).waitFor({ timeout: 15_000 }) },
    { path: "/onboarding/professional", as: "visitor", ready: (p) => p.getByRole("heading").first().waitFor({ timeout: 15_000 }) },
    { path: "/onboarding/healthcare", as: "visitor", ready: (p) => p.getByRole("heading").first().waitFor({ timeout: 15_000 }) },
    { path: "/onboarding/realestate", as: "visitor", ready: (p) => p.getByRole("heading").first().waitFor({ timeout: 15_000 }) },
    { path: "/login", as: "visitor", ready: heading("Sign in") },
    { path: "/signup", as: "visitor", ready: (p) => p.getByRole("heading", { level: 1 }).waitFor({ timeout: 15_000 }) },
    { path: "/set-password?token=not-a-token", as: "visitor", ready: (p) => p.getByRole("heading", { level: 1 }).waitFor({ timeout: 15_000 }) },
    { path: "/verify-email?token=not-a-token", as: "visitor", ready: (p) => p.getByRole("heading", { level: 1 }).waitFor({ timeout: 15_000 }) },
    { path: "/invite?token=not-a-token", as: "visitor", ready: (p) => p.getByRole("heading", { level: 1 }).waitFor({ timeout: 15_000 }) },
    { path: "/no-such-page", as: "visitor", ready: heading("404 Page Not Found") },
    { path: "/app", as: "member", ready: heading("Security Dashboard") },
    { path: "/app/dashboard", as: "member", ready: (p) => p.getByRole("region", { name: "Domain Status" }).getByText("example.com").filter({ visible: true }).first().waitFor({ timeout: 15_000 }) },
    { path: "/app/domains", as: "member", ready: (p) => p.getByText("example.com").filter({ visible: true }).first().waitFor({ timeout: 15_000 }) },
    { path: `/app/domains/${ids.domainId}`, as: "member", ready: heading("example.com") },
    { path: "/app/reports", as: "member", ready: (p) => p.getByRole("table").first().waitFor({ timeout: 15_000 }) },
    { path: "/app/tasks", as: "member", ready: heading("Tasks & Issues") },
    { path: "/app/threats", as: "member", ready: heading("Threat Map") },
    { path: `/app/senders/${encodeURIComponent(ids.senderKey)}`, as: "member", ready: (p) => p.getByRole("heading", { level: 1 }).waitFor({ timeout: 15_000 }) },
    { path: "/app/dns", as: "member", ready: heading("DNS Lookup") },
    { path: "/app/portfolio", as: "member", ready: (p) => p.getByText("Hillside Bakery").filter({ visible: true }).first().waitFor({ timeout: 15_000 }) },
    { path: "/app/settings", as: "member", ready: (p) => p.getByRole("region", { name: /Members/ }).getByRole("table").waitFor({ timeout: 15_000 }) },
    { path: "/admin/dashboard", as: "member", ready: (p) => p.getByRole("row", { name: /Hayworth/ }).waitFor({ timeout: 15_000 }) },
  ];
}

/** Contact submissions for the admin table (one with every optional field, long words included). */
export async function sendContactMessages(server: RunningServer): Promise<void> {
  const messages = [
    { name: "Rita Hayworth", email: "rita.hayworth@hayworth-and-partners-law.example", company: "Hayworth & Partners Law", phone: "+1 555 0199", requestType: "sales", subject: "Pricing for our three offices", message: "We have three domains and would like to stop spoofing this month, please call.", domains: "hayworth-law.example, hayworth-partners.example, hp-mail.example" },
    { name: "Sam Okafor", email: "sam@clinic.example", company: "Okafor Family Clinic", requestType: "support", subject: "DKIM selector question", message: "Which selector does Microsoft 365 use for our domain? Thank you." },
  ];
  for (const m of messages) expect((await fetch(server.url + "/api/contact", { method: "POST", headers: { "content-type": "application/json", origin: server.url }, body: JSON.stringify(m) })).status).toBe(201);
}

/** A browser context signed in as the demo owner (the password `serve --seed-demo` printed) and as the administrator. */
export async function memberContext(browser: Browser, server: RunningServer, options: Parameters<Browser["newContext"]>[0]): Promise<BrowserContext> {
  const context = await browser.newContext(options);
  const login = /Sign in as (\S+) with password (\S+)/.exec(server.output());
  expect(login).not.toBeNull();
  const signedIn = await context.request.post(server.url + "/api/auth/login", { data: { email: login![1], password: login![2] }, headers: { origin: server.url } });
  expect(signedIn.status()).toBe(200);
  const admin = await context.request.post(server.url + "/api/admin/login", { data: ADMIN, headers: { origin: server.url } });
  const { sessionId } = (await admin.json()) as { sessionId: string };
  expect(sessionId).toBeTruthy();
  await context.addInitScript((id) => localStorage.setItem("adminSessionId", id), sessionId);
  return context;
}

/** A client organization of the demo organization, so the portfolio has a row. */
export async function addClient(context: BrowserContext, server: RunningServer): Promise<void> {
  const created = await context.request.post(server.url + "/api/orgs/clients", { data: { name: "Hillside Bakery" }, headers: { origin: server.url } });
  expect(created.status()).toBe(201);
}

/** The demo organization's first domain and its first sender, for the screens below them. */
export async function demoIds(context: BrowserContext, server: RunningServer): Promise<{ domainId: string; senderKey: string }> {
  const domains = (await (await context.request.get(server.url + "/api/domains")).json()) as { id: string; name: string }[];
  const domain = domains.find((d) => d.name === "example.com") ?? domains[0]!;
  // the demo's senders come from roll-ups written just after start-up
  let senderKey: string | undefined;
  for (let i = 0; i < 100 && !senderKey; i++) {
    const senders = (await (await context.request.get(server.url + "/api/senders")).json()) as { key: string }[];
    // a key without a dot: the server answers paths that end like a file name ("….41") as missing assets
    senderKey = senders.find((x) => !x.key.includes("."))?.key;
    if (!senderKey) await Bun.sleep(100);
  }
  expect(senderKey).toBeTruthy();
  return { domainId: domain.id, senderKey: senderKey! };
}

/** Opens a screen and waits until it has loaded and settled (lazy chunks, queries, fades). */
export async function openScreen(page: Page, server: RunningServer, screen: Screen): Promise<void> {
  await page.goto(server.url + screen.path);
  try {
    await screen.ready(page);
  } catch (e) {
    throw new Error(`${screen.path} did not load: ${(await page.locator("body").innerText()).slice(0, 300)}`, { cause: e });
  }
  await page.waitForLoadState("networkidle");
  await page.waitForTimeout(250);
}
