/**
 * The usual end-to-end setup: the built executable and one Chromium for a test file, started
 * before its tests and stopped after them, plus signing up through the API.
 */
import { afterAll, beforeAll, expect } from "bun:test";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { launchBrowser } from "./browser";
import { linkIn, type MailCapture } from "./mail-capture";
import { startServer, type RunningServer } from "./server";

export interface ServerAndBrowser {
  server: RunningServer;
  browser: Browser;
}

/**
 * Registers beforeAll/afterAll hooks that start the server (with `args`, which may be a function
 * read when the hook runs, e.g. after a DNS stand-in has started) and a browser. The returned
 * object's `server` and `browser` are set once the hooks have run.
 */
export function useServerAndBrowser(options: { args?: string[] | (() => string[]) } = {}): ServerAndBrowser {
  const ctx = {} as ServerAndBrowser;
  beforeAll(async () => {
    const args = typeof options.args === "function" ? options.args() : options.args;
    ctx.server = await startServer({ args });
    ctx.browser = await launchBrowser();
  }, 180_000);
  afterAll(async () => {
    await ctx.browser?.close();
    await ctx.server?.stop();
  });
  return ctx;
}

export interface SignUp {
  name: string;
  email: string;
  password: string;
  organization: string;
}

/**
 * Creates an account through POST /api/auth/signup in the page's context, so the page is signed
 * in. Unique email unless given. With a mail relay, pass its capture: the account is confirmed by link.
 */
export async function signUpViaApi(page: Page, base: string, fields: Partial<SignUp> = {}, mailbox?: MailCapture): Promise<SignUp> {
  const account: SignUp = {
    name: "E2E Owner",
    email: `owner-${Date.now()}-${Math.random().toString(36).slice(2, 8)}@e2e.example`,
    password: "e2e owner password 1",
    organization: "E2E Org",
    ...fields,
  };
  const res = await page.request.post(base + "/api/auth/signup", { data: account, headers: { origin: base } });
  if (!mailbox) {
    expect(res.status()).toBe(201);
    return account;
  }
  // mail on: the account is confirmed through the mailed link, which signs the page in
  expect(res.status()).toBe(202);
  const mail = await mailbox.waitFor((m) => m.to.includes(account.email) && m.subject === "Confirm your email address for dmarcwarden");
  const token = new URL(linkIn(mail, `${base}/verify-email?token=`)).searchParams.get("token");
  const confirmed = await page.request.post(base + "/api/auth/verify-email", { data: { token }, headers: { origin: base } });
  expect(confirmed.status()).toBe(200);
  return account;
}

/** A full-page screenshot into $SHOTS_DIR when set (for looking at screens by hand); nothing otherwise. */
export async function shot(page: Page, name: string): Promise<void> {
  const dir = process.env.SHOTS_DIR;
  if (!dir) return;
  mkdirSync(dir, { recursive: true });
  await page.screenshot({ path: join(dir, `${name}.png`), fullPage: true });
}

/** Signs the page in as the demo owner whose password `serve --seed-demo` printed. */
export async function signInAsDemoOwner(page: Page, server: RunningServer): Promise<void> {
  const login = /Sign in as (\S+) with password (\S+)/.exec(server.output());
  expect(login).not.toBeNull();
  const res = await page.request.post(server.url + "/api/auth/login", { data: { email: login![1], password: login![2] }, headers: { origin: server.url } });
  expect(res.status()).toBe(200);
}

/** How far the page is wider than the window (0: no sideways scroll). */
export const noOverflow = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
