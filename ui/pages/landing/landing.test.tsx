import { afterEach, describe, expect, test } from "bun:test";
import { cleanup, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { renderApp } from "../../../tests/support/ui";
import { DEFAULT_PLAN, PLANS } from "../../../src/lib/plans";

afterEach(cleanup);

const href = (name: string | RegExp, root: HTMLElement = document.body) => within(root).getByRole("link", { name }).getAttribute("href");

describe("landing page (SPEC §2)", () => {
  test("header: Sign In button and Start Free Trial → /trial; hero: free trial → /trial, Live Demo → /demo", async () => {
    renderApp("/");
    expect(await screen.findByRole("heading", { level: 1 })).toBeTruthy();
    const nav = screen.getByRole("navigation", { name: "Site" });
    expect(within(nav).getByRole("button", { name: "Sign In" })).toBeTruthy();
    expect(href("Start Free Trial", nav)).toBe("/trial");
    // the full label at every width: no part of it hidden on phones
    const trial = within(nav).getByRole("link", { name: "Start Free Trial" });
    expect(trial.textContent).toBe("Start Free Trial");
    expect(trial.querySelector(".hidden, .sm\\:hidden")).toBeNull();
    expect(href(/Start 7-Day Free Trial/)).toBe("/trial");
    expect(screen.getAllByRole("link", { name: /Live Demo/ })[0]!.getAttribute("href")).toBe("/demo");
  });

  test("customers find their sign-in: a Customer log in link to /login beside the administrator's Sign In, and the dialog links there too", async () => {
    const user = userEvent.setup();
    renderApp("/");
    await screen.findByRole("heading", { level: 1 });
    const nav = screen.getByRole("navigation", { name: "Site" });
    // "Customer log in", or "Log in" on a phone (CSS shows one of the two; this test has no CSS)
    expect(href(/Customer log in/, nav)).toBe("/login");
    const admin = within(nav).getByRole("button", { name: "Sign In" });
    expect(admin.getAttribute("title")).toBe("Master Administrator sign-in");
    await user.click(admin);
    const dialog = await screen.findByRole("dialog");
    expect(within(dialog).getByRole("link", { name: "Log in to your organization's account" }).getAttribute("href")).toBe("/login");
  });

  test("Sign In opens the master administrator login dialog", async () => {
    const user = userEvent.setup();
    renderApp("/");
    await screen.findByRole("heading", { level: 1 });
    expect(screen.queryByRole("dialog")).toBeNull();
    await user.click(within(screen.getByRole("navigation", { name: "Site" })).getByRole("button", { name: "Sign In" }));
    expect(await screen.findByRole("dialog")).toBeTruthy();
  });

  test("stats tiles, dashboard preview and threat-location risk levels", async () => {
    renderApp("/");
    await screen.findByRole("heading", { level: 1 });
    for (const text of ["7 Day", "free trial", "20%", "of the cost vs competitors", "5 minutes", "setup"]) expect(screen.getAllByText(text).length).toBeGreaterThan(0);
    const preview = screen.getByLabelText("Dashboard preview");
    for (const text of ["2/5", "Domains Protected", "4", "Active Threats", "1,247", "Reports Processed", "High Risk", "Medium", "Critical"])
      expect(within(preview).getByText(text)).toBeTruthy();
  });

  test("three industry guides link to the wizards; six features", async () => {
    renderApp("/");
    await screen.findByRole("heading", { level: 1 });
    const guides = screen.getByRole("region", { name: "Setup guides for your industry" });
    expect(within(guides).getAllByRole("link").map((a) => a.getAttribute("href"))).toEqual(["/onboarding/professional", "/onboarding/healthcare", "/onboarding/realestate"]);
    const features = screen.getByRole("region", { name: "Everything you need to stop email spoofing" });
    expect(within(features).getAllByRole("heading", { level: 3 })).toHaveLength(6);
  });

  test("pricing shows SPEC §9's plans and prices, Growth marked Most Popular", async () => {
    renderApp("/");
    await screen.findByRole("heading", { level: 1 });
    expect(DEFAULT_PLAN).toBe("growth");
    const pricing = screen.getByRole("region", { name: /Simple pricing/ });
    const cards = within(pricing).getAllByRole("article");
    expect(cards.map((c) => within(c).getByRole("heading", { level: 3 }).textContent)).toEqual(["Essentials", "Growth", "Scale / Enterprise"]);
    expect(cards.map((c) => c.textContent!.match(/\$\d+\/month/)?.[0])).toEqual(["$29/month", "$99/month", "$299/month"]);
    expect(within(cards[1]!).getByText("Most Popular")).toBeTruthy();
    expect(within(cards[0]!).queryByText("Most Popular")).toBeNull();
    for (const plan of Object.values(PLANS)) {
      const card = cards.find((c) => c.getAttribute("aria-label") === `${plan.name} plan`)!;
      for (const feature of plan.features) expect(within(card).getByText(feature)).toBeTruthy();
    }
  });

  test("trust stats carry SPEC §1's claims", async () => {
    renderApp("/");
    await screen.findByRole("heading", { level: 1 });
    for (const text of ["30+ years", "SOC 2 Type II", "99.9% uptime", "SLA for enterprise plans"]) expect(screen.getByText(text)).toBeTruthy();
  });

  test("footer: Support opens the contact dialog with requestType support; Contact Us → /contact; legal items are not links", async () => {
    const user = userEvent.setup();
    renderApp("/");
    await screen.findByRole("heading", { level: 1 });
    const help = screen.getByRole("navigation", { name: "Help" });
    expect(href("Contact Us", help)).toBe("/contact");
    for (const item of ["Privacy Policy", "Terms of Service"]) expect(screen.getByText(item).closest("a")).toBeNull();
    await user.click(within(help).getByRole("button", { name: "Support" }));
    const dialog = await screen.findByRole("dialog");
    expect(within(dialog).getByRole("heading", { name: "Send Us a Message" })).toBeTruthy();
    expect((within(dialog).getByLabelText(/Request Type/) as HTMLSelectElement).value).toBe("support");
    await user.keyboard("{Escape}");
    await waitFor(() => expect(screen.queryByRole("dialog")).toBeNull());
  });

  test("Talk to Sales opens the contact dialog with requestType sales", async () => {
    const user = userEvent.setup();
    renderApp("/");
    await screen.findByRole("heading", { level: 1 });
    await user.click(screen.getByRole("button", { name: "Talk to Sales" }));
    const dialog = await screen.findByRole("dialog");
    expect((within(dialog).getByLabelText(/Request Type/) as HTMLSelectElement).value).toBe("sales");
  });
});
