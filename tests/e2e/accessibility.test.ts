/**
 * axe-core on every screen in Chromium against the built executable: signed out and signed in,
 * at 1280 and 375 px, in the light and the dark theme. No serious or critical violation, one
 * main landmark a page, and every page's content inside landmarks. Also: the theme follows the
 * system and the switch keeps a choice, each route names itself in the title, a toast on a
 * phone leaves the header free, and a long organization name stays readable in the switcher.
 * Set SHOTS_DIR to keep a screenshot of every screen in every combination.
 */
import { beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { BrowserContext, Page } from "playwright-core";
import { shot, useServerAndBrowser } from "../support/e2e";
import { addClient, demoIds, memberContext, openScreen, screens, SCREENS_SERVER_ARGS, sendContactMessages, type Screen } from "../support/screens";
import { ROOT } from "../support/server";

const AXE_SOURCE = readFileSync(join(ROOT, "node_modules/axe-core/axe.min.js"), "utf8");
/** Rules below "serious" that this product holds to as well: landmarks (one main, all content inside landmarks). */
const ALSO_REQUIRED = new Set(["landmark-one-main", "landmark-no-duplicate-main", "landmark-unique", "region", "landmark-main-is-top-level"]);

const ctx = useServerAndBrowser({ args: SCREENS_SERVER_ARGS });
let ids: { domainId: string; senderKey: string };

beforeAll(async () => {
  await sendContactMessages(ctx.server);
  const context = await memberContext(ctx.browser, ctx.server, {});
  ids = await demoIds(context, ctx.server);
  await addClient(context, ctx.server);
  await context.close();
}, 60_000);

interface Finding {
  rule: string;
  impact: string;
  help: string;
  nodes: string[];
}

/** axe-core run in the page (evaluated through the driver: the app's CSP allows no injected script tags). */
async function axeFindings(page: Page): Promise<Finding[]> {
  if (!(await page.evaluate(() => "axe" in window))) await page.evaluate(AXE_SOURCE);
  const results = await page.evaluate(async () => {
    // @ts-expect-error axe is the injected global
    const r = await window.axe.run(document, { resultTypes: ["violations"] });
    return r.violations.map((v: { id: string; impact: string; help: string; nodes: { target: string[]; html: string; failureSummary?: string }[] }) => ({
      rule: v.id,
      impact: v.impact,
      help: v.help,
      nodes: v.nodes.slice(0, 5).map((n) => `${n.target.join(" ")} ${n.html.slice(0, 160)} — ${(n.failureSummary ?? "").replace(/\s+/g, " ").slice(0, 220)}`),
    }));
  });
  return (results as Finding[]).filter((f) => f.impact === "serious" || f.impact === "critical" || ALSO_REQUIRED.has(f.rule));
}

async function contexts(scheme: "light" | "dark", width: number): Promise<Record<Screen["as"], BrowserContext>> {
  const options = { viewport: { width, height: 900 }, colorScheme: scheme } as const;
  return { visitor: await ctx.browser.newContext(options), member: await memberContext(ctx.browser, ctx.server, options) };
}

describe("axe-core finds no serious or critical violation on any screen", () => {
  for (const scheme of ["light", "dark"] as const) {
    for (const width of [1280, 375]) {
      test(`${scheme}, ${width} px`, async () => {
        const byRole = await contexts(scheme, width);
        const pages = { visitor: await byRole.visitor.newPage(), member: await byRole.member.newPage() };
        const failures: string[] = [];
        for (const screen of screens(ids)) {
          const page = pages[screen.as];
          await openScreen(page, ctx.server, screen);
          expect(await page.evaluate(() => getComputedStyle(document.documentElement).colorScheme)).toBe(scheme);
          for (const f of await axeFindings(page)) failures.push(`${screen.path} [${screen.as}] ${f.rule} (${f.impact}): ${f.help}\n    ${f.nodes.join("\n    ")}`);
          await shot(page, `a11y-${scheme}-${width}-${screen.path.replace(/[^a-z0-9]+/gi, "_")}`);
        }
        await byRole.visitor.close();
        await byRole.member.close();
        expect(failures).toEqual([]);
      }, 300_000);
    }
  }
});

describe("theme, titles, toasts and long names", () => {
  /** The lightness (0 to 1) of the app's page background: Chromium gives the theme's oklch() colors as they are. */
  const background = (page: Page) =>
    page.evaluate(() => {
      const color = getComputedStyle(document.documentElement).backgroundColor;
      const oklch = /oklch\(([\d.]+)(%?)/.exec(color);
      if (oklch) return Number(oklch[1]) / (oklch[2] ? 100 : 1);
      const [r, g, b] = color.match(/[\d.]+/g)!.map(Number);
      return (r! + g! + b!) / 3 / 255;
    });

  test("the theme follows the system until the switch keeps a choice, on every page", async () => {
    const context = await memberContext(ctx.browser, ctx.server, { viewport: { width: 1280, height: 900 }, colorScheme: "dark" });
    const page = await context.newPage();
    await page.goto(ctx.server.url + "/app/dashboard");
    const theme = page.getByRole("combobox", { name: "Theme" });
    await theme.waitFor();
    expect(await theme.inputValue()).toBe("system");
    expect(await page.evaluate(() => getComputedStyle(document.documentElement).colorScheme)).toBe("dark");
    expect(await background(page)).toBeLessThan(0.3);

    await theme.selectOption("light");
    expect(await page.evaluate(() => document.documentElement.dataset.theme)).toBe("dmarcwarden");
    expect(await background(page)).toBeGreaterThan(0.9);
    await page.reload();
    await page.getByRole("combobox", { name: "Theme" }).waitFor();
    expect(await page.getByRole("combobox", { name: "Theme" }).inputValue()).toBe("light");
    expect(await background(page)).toBeGreaterThan(0.9);

    // the public pages keep it too, and their own switch (in the landing page's footer) changes it back
    await page.goto(ctx.server.url + "/");
    const footerSwitch = page.getByRole("contentinfo").getByRole("combobox", { name: "Theme" });
    expect(await footerSwitch.inputValue()).toBe("light");
    expect(await page.evaluate(() => getComputedStyle(document.documentElement).colorScheme)).toBe("light");
    await footerSwitch.selectOption("system");
    expect(await page.evaluate(() => getComputedStyle(document.documentElement).colorScheme)).toBe("dark");
    expect(await page.evaluate(() => localStorage.getItem("dmarcwarden-theme"))).toBeNull();
    await context.close();
  }, 60_000);

  test("each route names its screen in the document title", async () => {
    const context = await memberContext(ctx.browser, ctx.server, {});
    const visitor = await ctx.browser.newContext();
    const pages = { member: await context.newPage(), visitor: await visitor.newPage() };
    const titles = new Map<string, string>();
    for (const screen of screens(ids)) {
      await openScreen(pages[screen.as], ctx.server, screen);
      titles.set(screen.path.split("?")[0]!, await pages[screen.as].title());
    }
    expect(titles.get("/")).toBe("dmarcwarden — DMARC, SPF & DKIM monitoring");
    expect(titles.get("/app/dashboard")).toBe("Dashboard · dmarcwarden");
    expect(titles.get("/app/domains")).toBe("Domain Management · dmarcwarden");
    expect(titles.get(`/app/domains/${ids.domainId}`)).toBe("example.com · dmarcwarden");
    expect(titles.get("/login")).toBe("Sign in · dmarcwarden");
    expect(titles.get("/admin/dashboard")).toBe("Master Administrator Console · dmarcwarden");
    expect(titles.get("/no-such-page")).toBe("404 Page Not Found · dmarcwarden");
    // /app is SPEC's "same screen as /demo"; every other screen has a title of its own
    expect(titles.get("/app")).toBe(titles.get("/demo")!);
    const others = [...titles].filter(([path]) => path !== "/app").map(([, title]) => title);
    expect(new Set(others).size).toBe(others.length);
    await context.close();
    await visitor.close();
  }, 120_000);

  test("on a phone a toast leaves the header and its menu button free", async () => {
    const context = await memberContext(ctx.browser, ctx.server, { viewport: { width: 375, height: 740 } });
    const page = await context.newPage();
    await page.goto(ctx.server.url + "/app/dns");
    await page.getByRole("heading", { name: "DNS Lookup", level: 1 }).waitFor();
    await page.getByRole("main").getByRole("button", { name: /Lookup/ }).first().click();
    const toast = page.getByTestId("toast").filter({ hasText: "Domain Required" });
    await toast.waitFor();
    const header = (await page.getByRole("banner").boundingBox())!;
    const box = (await toast.boundingBox())!;
    expect(box.y).toBeGreaterThanOrEqual(header.y + header.height);
    const menu = page.getByRole("button", { name: "Open navigation" });
    await menu.click({ trial: true }); // nothing covers it
    await menu.click();
    // the drawer takes focus on its close button; Escape closes it and focus goes back to the menu button
    await page.waitForFunction(() => document.activeElement?.textContent === "Close navigation", null, { timeout: 5000 });
    // the page behind the open drawer is out of reach: Tab stays in the drawer
    for (let i = 0; i < 12; i++) await page.keyboard.press("Tab");
    expect(await page.evaluate(() => Boolean(document.activeElement?.closest("#app-sidebar")))).toBe(true);
    await page.keyboard.press("Escape");
    await page.waitForFunction(() => document.activeElement?.textContent === "Open navigation", null, { timeout: 5000 });
    await context.close();
  }, 60_000);

  test("a long organization name is readable whole in the switcher, at 1280 and 375 px", async () => {
    const name = "Northwind Dental & Orthodontic Associates of Springfield";
    const setup = await memberContext(ctx.browser, ctx.server, {});
    const home = ((await (await setup.request.get(ctx.server.url + "/api/auth/me")).json()) as { currentOrg: { id: string } }).currentOrg.id;
    const created = await setup.request.post(ctx.server.url + "/api/orgs/clients", { data: { name }, headers: { origin: ctx.server.url } });
    expect(created.status()).toBe(201);
    const { id } = (await created.json()) as { id: string };
    for (const width of [1280, 375]) {
      const context = await memberContext(ctx.browser, ctx.server, { viewport: { width, height: 900 } });
      expect((await context.request.post(ctx.server.url + `/api/orgs/${id}/switch`, { headers: { origin: ctx.server.url } })).status()).toBe(200);
      const page = await context.newPage();
      await page.goto(ctx.server.url + "/app/domains");
      if (width < 1024) await page.getByRole("button", { name: "Open navigation" }).click();
      const trigger = page.getByRole("button", { name: /switch organization/i });
      await trigger.waitFor();
      expect(await trigger.textContent()).toContain(name);
      const shown = trigger.getByText(name, { exact: true });
      await shot(page, `a11y-long-org-name-${width}-switcher`);
      // nothing of the name is clamped away or cut
      expect(await shown.evaluate((el) => el.scrollHeight <= el.clientHeight + 1 && el.scrollWidth <= el.clientWidth + 1)).toBe(true);
      await trigger.click();
      const item = page.getByRole("menuitem", { name: new RegExp(name) });
      await item.waitFor();
      expect(await item.getByText(name, { exact: true }).evaluate((el) => el.scrollWidth <= el.clientWidth + 1)).toBe(true);
      await shot(page, `a11y-long-org-name-${width}`);
      await context.close();
    }
    // back to the demo organization for whatever runs next
    expect((await setup.request.post(ctx.server.url + `/api/orgs/${home}/switch`, { headers: { origin: ctx.server.url } })).status()).toBe(200);
    await setup.close();
  }, 90_000);
});

describe("keyboard", () => {
  /** Contrast ratio (WCAG) of two CSS colours, as the browser paints them. */
  const contrastIn = (page: Page, a: string, b: string) =>
    page.evaluate(
      ([first, second]) => {
        const canvas = document.createElement("canvas");
        canvas.width = canvas.height = 1;
        const paint = canvas.getContext("2d")!;
        const luminance = (color: string) => {
          paint.clearRect(0, 0, 1, 1);
          paint.fillStyle = color;
          paint.fillRect(0, 0, 1, 1);
          const [r, g, b] = [...paint.getImageData(0, 0, 1, 1).data].slice(0, 3).map((v) => {
            const c = v / 255;
            return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
          });
          return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
        };
        const [l1, l2] = [luminance(first), luminance(second)].sort((x, y) => y - x);
        return (l1! + 0.05) / (l2! + 0.05);
      },
      [a, b] as const,
    );
  const focused = (page: Page) => page.evaluate(() => ({ text: document.activeElement?.textContent?.trim() ?? "", inSidebar: !!document.activeElement?.closest("#app-sidebar"), id: document.activeElement?.id ?? "" }));

  test("Tab starts with a skip link, then the sidebar, each stop with a visible ring of at least 3:1", async () => {
    for (const scheme of ["light", "dark"] as const) {
      const context = await memberContext(ctx.browser, ctx.server, { viewport: { width: 1280, height: 900 }, colorScheme: scheme });
      const page = await context.newPage();
      await openScreen(page, ctx.server, screens(ids).find((s) => s.path === "/app/dashboard")!);
      await page.keyboard.press("Tab");
      expect((await focused(page)).text).toBe("Skip to main content");
      expect(await page.getByRole("link", { name: "Skip to main content" }).isVisible()).toBe(true);
      // the sidebar comes next: its entries are reached before anything of the screen
      await page.keyboard.press("Tab");
      expect((await focused(page)).inSidebar).toBe(true);
      let reachedDashboard = false;
      for (let i = 0; i < 6 && !reachedDashboard; i++) {
        const stop = await focused(page);
        expect(stop.inSidebar).toBe(true);
        reachedDashboard = stop.text === "Dashboard";
        if (!reachedDashboard) await page.keyboard.press("Tab");
      }
      expect(reachedDashboard).toBe(true);
      const ring = await page.evaluate(() => {
        const el = document.activeElement as HTMLElement;
        const style = getComputedStyle(el);
        return { style: style.outlineStyle, width: parseFloat(style.outlineWidth), color: style.outlineColor, behind: getComputedStyle(el.closest("aside")!).backgroundColor };
      });
      expect(ring.style).toBe("solid");
      expect(ring.width).toBeGreaterThanOrEqual(2);
      expect(await contrastIn(page, ring.color, ring.behind)).toBeGreaterThanOrEqual(3);
      // the skip link takes focus to the screen itself
      await openScreen(page, ctx.server, screens(ids).find((s) => s.path === "/app/dashboard")!);
      await page.keyboard.press("Tab");
      await page.keyboard.press("Enter");
      expect((await focused(page)).id).toBe("main");
      await context.close();
    }
  }, 120_000);

  test("Escape closes a dialog and gives focus back to the button that opened it", async () => {
    const context = await ctx.browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    await page.goto(ctx.server.url + "/");
    const signIn = page.getByRole("navigation", { name: "Site" }).getByRole("button", { name: "Sign In", exact: true });
    await signIn.focus();
    await page.keyboard.press("Enter");
    await page.getByRole("dialog").waitFor();
    await page.keyboard.press("Escape");
    await page.getByRole("dialog").waitFor({ state: "detached" });
    expect(await signIn.evaluate((el) => el === document.activeElement)).toBe(true);
    await context.close();
  }, 60_000);

  test("axe finds nothing serious with the notifications menu or the sign-in dialog open", async () => {
    const failures: string[] = [];
    // an open menu's popup sits outside the landmarks by design (a portal): only serious and critical findings count here
    const serious = async (page: Page) => (await axeFindings(page)).filter((f) => f.impact === "serious" || f.impact === "critical");
    for (const scheme of ["light", "dark"] as const) {
      const byRole = await contexts(scheme, 1280);
      const member = await byRole.member.newPage();
      await openScreen(member, ctx.server, screens(ids).find((s) => s.path === "/app/dashboard")!);
      await member.getByRole("button", { name: /^Notifications/ }).click();
      await member.getByRole("menu").waitFor();
      for (const f of await serious(member)) failures.push(`${scheme} notifications menu: ${f.rule} (${f.impact}): ${f.help}\n    ${f.nodes.join("\n    ")}`);
      const visitor = await byRole.visitor.newPage();
      await visitor.goto(ctx.server.url + "/");
      await visitor.getByRole("navigation", { name: "Site" }).getByRole("button", { name: "Sign In", exact: true }).click();
      await visitor.getByRole("dialog").waitFor();
      await visitor.waitForTimeout(300);
      for (const f of await serious(visitor)) failures.push(`${scheme} sign-in dialog: ${f.rule} (${f.impact}): ${f.help}\n    ${f.nodes.join("\n    ")}`);
      await byRole.visitor.close();
      await byRole.member.close();
    }
    expect(failures).toEqual([]);
  }, 120_000);
});
