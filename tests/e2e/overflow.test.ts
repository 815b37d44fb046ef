/**
 * Nothing is cut or pushes the page sideways, in Chromium against the built executable at 1024,
 * 1280 and 375 px: on every screen (the demo's tabs included) no card is wider inside than its
 * box (a table too wide for its card scrolls in its own ScrollArea within it) and the page does
 * not scroll sideways. The Members table and the admin console's table are filled first.
 */
import { beforeAll, describe, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import { noOverflow, shot, useServerAndBrowser } from "../support/e2e";
import { addClient, demoIds, memberContext, openScreen, screens, SCREENS_SERVER_ARGS, sendContactMessages } from "../support/screens";

const ctx = useServerAndBrowser({ args: SCREENS_SERVER_ARGS });
let ids: { domainId: string; senderKey: string };

beforeAll(async () => {
  await sendContactMessages(ctx.server);
  const context = await memberContext(ctx.browser, ctx.server, {});
  ids = await demoIds(context, ctx.server);
  await addClient(context, ctx.server);
  // a second member with a long address, so the Members table has something to fit
  const invite = await context.request.post(ctx.server.url + "/api/members/invitations", {
    data: { email: "a.very.long.mailbox.name.for.layout@northwind-dental-and-orthodontics.example", role: "member" },
    headers: { origin: ctx.server.url },
  });
  expect([200, 201]).toContain(invite.status());
  await context.close();
}, 60_000);

/** Cards whose content is wider than the card (cut at its edge): their title and the overflow in px. */
const cutCards = (page: Page) =>
  page.evaluate(() =>
    [...document.querySelectorAll<HTMLElement>(".card, [data-card]")]
      .filter((card) => card.offsetParent !== null && card.scrollWidth > card.clientWidth + 1)
      .map((card) => `${(card.querySelector("h2, h3, [class*=card-title]")?.textContent ?? card.getAttribute("aria-label") ?? card.className).trim().slice(0, 60)}: ${card.scrollWidth - card.clientWidth}px`),
  );

describe("no card is cut and no page scrolls sideways", () => {
  for (const width of [1024, 1280, 375]) {
    test(`${width} px`, async () => {
      const options = { viewport: { width, height: 900 } };
      const visitor = await ctx.browser.newContext(options);
      const member = await memberContext(ctx.browser, ctx.server, options);
      const pages = { visitor: await visitor.newPage(), member: await member.newPage() };
      const problems: string[] = [];
      const check = async (page: Page, where: string) => {
        for (const card of await cutCards(page)) problems.push(`${where}: card "${card}" is cut`);
        const sideways = await noOverflow(page);
        if (sideways > 0) problems.push(`${where}: the page scrolls ${sideways}px sideways`);
        await shot(page, `overflow-${width}-${where.replace(/[^a-z0-9]+/gi, "_")}`);
      };
      for (const screen of screens(ids)) {
        const page = pages[screen.as];
        await openScreen(page, ctx.server, screen);
        await check(page, screen.path);
        if (screen.path === "/demo" || screen.path === "/app") {
          for (const tab of ["Domains", "Reports", "Tasks", "Threats", "DNS Lookup", "Settings"]) {
            await page.getByRole("tab", { name: tab }).click();
            await page.waitForSelector("#demo-panel:not([data-fading])");
            await check(page, `${screen.path} ${tab} tab`);
          }
        }
      }
      await visitor.close();
      await member.close();
      expect(problems).toEqual([]);
    }, 300_000);
  }
});
