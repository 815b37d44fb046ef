import { afterEach, describe, expect, test } from "bun:test";
import { cleanup, screen } from "@testing-library/react";
import { renderApp } from "../tests/support/ui";
import { usesSidebar } from "./lib/layout";

afterEach(cleanup);

describe("routing and layout (SPEC §2)", () => {
  test("an unknown path shows the 404 screen with its exact heading and hint, inside the sidebar", async () => {
    renderApp("/no/such/page");
    expect(await screen.findByRole("heading", { name: "404 Page Not Found" })).toBeTruthy();
    expect(screen.getByText("Did you forget to add the page to the router?")).toBeTruthy();
    expect(screen.getByRole("complementary", { name: "Sidebar" })).toBeTruthy();
  });

  test("the sidebar lists the seven entries, highlights Dashboard on /app/dashboard, and shows Security Admin", async () => {
    renderApp("/app/dashboard");
    const nav = await screen.findByRole("navigation", { name: "Main" });
    const labels = [...nav.querySelectorAll("a")].map((a) => a.textContent);
    expect(labels).toEqual(["Dashboard", "Domains", "DMARC Reports", "Tasks & Issues", "Threat Map", "DNS Lookup", "Settings"]);
    const dashboard = screen.getByRole("link", { name: "Dashboard" });
    expect(dashboard.getAttribute("href")).toBe("/app");
    expect(dashboard.getAttribute("aria-current")).toBe("page");
    expect(screen.getByRole("link", { name: "Domains" }).getAttribute("aria-current")).toBeNull();
    expect(screen.getByText("Security Admin")).toBeTruthy();
    expect(screen.getByRole("button", { name: "Log out" })).toBeTruthy();
  });

  test("public screens have no sidebar", async () => {
    renderApp("/contact");
    await screen.findByRole("heading", { level: 1 });
    expect(screen.queryByRole("complementary", { name: "Sidebar" })).toBeNull();
  });

  test.each([
    ["/", false],
    ["/trial", false],
    ["/demo", false],
    ["/contact", false],
    ["/onboarding/healthcare", false],
    ["/admin/dashboard", false],
    ["/app", true],
    ["/app/dns", true],
    ["/app/settings/", true],
    ["/somewhere-else", true],
  ])("usesSidebar(%p) is %p", (path, expected) => {
    expect(usesSidebar(path)).toBe(expected);
  });
});
