import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { cleanup, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { json, renderApp, renderWithProviders, restoreFetch, withFetch } from "../../../tests/support/ui";
import { sortThreats, ThreatList, type IpThreat } from "../../components/ThreatList";
import { DEMO_FADE_MS } from ".";
import { demoData } from "./sample-data";

afterEach(() => {
  cleanup();
  restoreFetch();
});
// nothing reaches the network: the visitor is signed out
beforeEach(() => void withFetch(() => json({ error: { code: "unauthorized", message: "Please sign in to continue." } }, 401)));

const now = new Date("2025-06-01T12:00:00Z");
const threats: IpThreat[] = [
  { ipAddress: "10.0.0.1", country: "Germany", city: "Berlin", attemptCount: 50, threatLevel: "medium", lastSeenAt: now },
  { ipAddress: "10.0.0.2", country: "Brazil", city: "Recife", attemptCount: 900, threatLevel: "low", lastSeenAt: now },
  { ipAddress: "10.0.0.3", country: "Chile", city: "Santiago", attemptCount: 10, threatLevel: "high", lastSeenAt: now },
];
const order = () => within(screen.getByRole("list", { name: "Threats" })).getAllByRole("listitem").map((li) => li.getAttribute("data-ip"));

describe("threat list (SPEC §2 Threat list)", () => {
  test("sorted by attempts, most first, labeled Last 24h, scrolling within max-h-96", () => {
    renderWithProviders(<ThreatList threats={threats} now={now} />);
    expect(order()).toEqual(["10.0.0.2", "10.0.0.1", "10.0.0.3"]);
    expect(screen.getByText("Last 24h")).toBeTruthy();
    expect(screen.getByRole("list", { name: "Threats" }).className).toContain("max-h-96");
  });

  test("clicking the same column toggles direction; other columns sort by level or country", async () => {
    const user = userEvent.setup();
    renderWithProviders(<ThreatList threats={threats} now={now} />);
    await user.click(screen.getByRole("button", { name: /Attempts/ }));
    expect(order()).toEqual(["10.0.0.3", "10.0.0.1", "10.0.0.2"]);
    await user.click(screen.getByRole("button", { name: /Attempts/ }));
    expect(order()).toEqual(["10.0.0.2", "10.0.0.1", "10.0.0.3"]);
    await user.click(screen.getByRole("button", { name: /Threat level/ }));
    expect(order()).toEqual(["10.0.0.3", "10.0.0.1", "10.0.0.2"]);
    await user.click(screen.getByRole("button", { name: /Threat level/ }));
    expect(order()).toEqual(["10.0.0.2", "10.0.0.1", "10.0.0.3"]);
    await user.click(screen.getByRole("button", { name: /Country/ }));
    expect(order()).toEqual(["10.0.0.2", "10.0.0.3", "10.0.0.1"]);
    await user.click(screen.getByRole("button", { name: /Country/ }));
    expect(order()).toEqual(["10.0.0.1", "10.0.0.3", "10.0.0.2"]);
    expect(screen.getByRole("button", { name: /Country/ }).getAttribute("aria-pressed")).toBe("true");
  });

  test("sortThreats does not change its input", () => {
    const copy = [...threats];
    sortThreats(threats, "country", "asc");
    expect(threats).toEqual(copy);
  });

  test("no threats shows SPEC §8's empty state", () => {
    renderWithProviders(<ThreatList threats={[]} />);
    expect(screen.getByText("No Active Threats")).toBeTruthy();
    expect(screen.getByText("Your domains are currently secure from malicious activity.")).toBeTruthy();
  });
});

describe("demo page (SPEC §2 Demo page)", () => {
  test("fade constant is 200 ms", () => {
    expect(DEMO_FADE_MS).toBe(200);
  });

  test("header links; seven tabs; Dashboard first with stats, domain badges and at most 3 tasks and 3 reports", async () => {
    renderApp("/demo");
    expect(await screen.findByRole("heading", { level: 1, name: "Security Dashboard" })).toBeTruthy();
    // Exact names: one label for every screen width (no shortened "Back" / "Free Trial" on phones).
    for (const [name, to] of [["Back to Main Site", "/"], ["Start 7 Day Free Trial", "/trial"]] as const) {
      const link = screen.getByRole("link", { name });
      expect(link.getAttribute("href")).toBe(to);
      expect(link.textContent).toBe(name);
      expect(link.querySelector(".hidden, .sm\\:hidden")).toBeNull();
    }
    expect(screen.getAllByRole("tab").map((t) => t.textContent)).toEqual(["Dashboard", "Domains", "Reports", "Tasks", "Threats", "DNS Lookup", "Settings"]);
    expect(screen.getByRole("tab", { name: "Dashboard" }).getAttribute("aria-selected")).toBe("true");
    expect(screen.getByText("2/5")).toBeTruthy();
    expect(screen.getByText("1.2K")).toBeTruthy();
    const domainTable = within(screen.getByRole("region", { name: "Domain Status" }));
    expect(domainTable.getAllByText("Protected")[0]!.getAttribute("data-tone")).toBe("good");
    expect(domainTable.getByText("Vulnerable").getAttribute("data-tone")).toBe("bad");
    expect(within(screen.getByRole("list", { name: "Tasks" })).getAllByRole("listitem")).toHaveLength(3);
    expect(within(screen.getByRole("region", { name: "Recent Reports" })).getAllByRole("row")).toHaveLength(4);
  });

  test("/app shows the same demo", async () => {
    renderApp("/app");
    expect(await screen.findByRole("heading", { level: 1, name: "Security Dashboard" })).toBeTruthy();
  });

  test("switching tabs fades out, then shows the new tab", async () => {
    const user = userEvent.setup();
    renderApp("/demo");
    await screen.findByRole("heading", { level: 1, name: "Security Dashboard" });
    await user.click(screen.getByRole("tab", { name: "Tasks" }));
    expect(screen.getByRole("tab", { name: "Tasks" }).getAttribute("aria-selected")).toBe("true");
    expect(screen.getByRole("tabpanel").getAttribute("data-fading")).toBe("true");
    expect(await screen.findByRole("heading", { level: 1, name: "Tasks & Issues" })).toBeTruthy();
    expect(screen.getByRole("tabpanel").getAttribute("data-fading")).toBeNull();
    expect(within(screen.getByRole("list", { name: "Tasks" })).getAllByRole("listitem")).toHaveLength(demoData().tasks.length);
    expect(screen.getAllByText("High").length).toBeGreaterThan(0);
  });

  test("arrow keys move between tabs", async () => {
    const user = userEvent.setup();
    renderApp("/demo");
    await screen.findByRole("heading", { level: 1, name: "Security Dashboard" });
    screen.getByRole("tab", { name: "Dashboard" }).focus();
    await user.keyboard("{ArrowDown}");
    expect(await screen.findByRole("heading", { level: 1, name: "Domain Management" })).toBeTruthy();
    expect(document.activeElement).toBe(screen.getByRole("tab", { name: "Domains" }));
  });

  test("reports tab colors pass rates green, orange and red", async () => {
    const user = userEvent.setup();
    renderApp("/demo");
    await screen.findByRole("heading", { level: 1, name: "Security Dashboard" });
    await user.click(screen.getByRole("tab", { name: "Reports" }));
    await screen.findByRole("heading", { level: 1, name: "DMARC Reports" });
    const cells = screen.getAllByTestId("pass-rate");
    const byText = (text: string) => cells.find((c) => c.textContent === text)!.className;
    expect(byText("98.6%")).toContain("green");
    expect(byText("88.4%")).toContain("orange");
    expect(byText("64.5%")).toContain("red");
  });

  test("settings tab: SPEC's fields, cache TTL placeholder 3600, Business Plan sample, Admin and User roles", async () => {
    const user = userEvent.setup();
    renderApp("/demo");
    await screen.findByRole("heading", { level: 1, name: "Security Dashboard" });
    await user.click(screen.getByRole("tab", { name: "Settings" }));
    await screen.findByRole("heading", { level: 1, name: "Settings" });
    for (const label of [
      "Organization Name",
      "Contact Email",
      "Email Notifications",
      "DMARC Aggregate Reports (rua)",
      "DMARC Forensic Reports (ruf)",
      "Auto-process Reports",
      "DNS Caching",
      "Real-time Threat Monitoring",
      "Compliance Alerts",
    ])
      expect(screen.getByLabelText(label)).toBeTruthy();
    expect(screen.getByLabelText("Cache TTL (seconds)").getAttribute("placeholder")).toBe("3600");
    expect(screen.getByRole("button", { name: /Reset to Defaults/ })).toBeTruthy();
    expect(screen.getByRole("button", { name: /Save Settings/ })).toBeTruthy();
    expect(screen.getByText("Business Plan")).toBeTruthy();
    expect(screen.getByText("$149/month")).toBeTruthy();
    expect(screen.getByText("50 domains")).toBeTruthy();
    expect(screen.getByText("10 users")).toBeTruthy();
    expect(screen.getByText("10,000 reports a month")).toBeTruthy();
    expect(screen.getAllByText("Admin").length).toBeGreaterThan(0);
    expect(screen.getAllByText("User").length).toBeGreaterThan(0);
    // Reset to Defaults restores the sample values.
    const org = screen.getByLabelText("Organization Name") as HTMLInputElement;
    await user.clear(org);
    await user.type(org, "Other");
    await user.click(screen.getByRole("button", { name: /Reset to Defaults/ }));
    await waitFor(() => expect(org.value).toBe("Summit Legal Group"));
  });

  test("threats tab sorts by attempts, most first", async () => {
    const user = userEvent.setup();
    renderApp("/demo");
    await screen.findByRole("heading", { level: 1, name: "Security Dashboard" });
    await user.click(screen.getByRole("tab", { name: "Threats" }));
    await screen.findByRole("heading", { level: 1, name: "Threat Map" });
    const attempts = demoData().threats.map((t) => t.attemptCount).sort((a, b) => b - a);
    const first = order()[0];
    expect(demoData().threats.find((t) => t.ipAddress === first)!.attemptCount).toBe(attempts[0]!);
  });
});
