import { describe, expect, test } from "bun:test";
import { screen, waitFor } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { cleanUpAfterEach, json, renderWithProviders, withFetch } from "../../../tests/support/ui";
import ThreatsPage from ".";

cleanUpAfterEach();

const COUNTS: Record<string, Record<string, number>> = { "24h": { US: 5, DE: 120 }, "7d": { US: 50, DE: 400, BR: 3 }, "30d": {} };

function serve() {
  return withFetch((url) => {
    if (url === "/api/ip-threats")
      return json([
        { ipAddress: "203.0.113.9", country: "Germany", countryCode: "DE", city: "", attemptCount: 120, deliveredCount: 0, threatLevel: "high", lastSeenAt: new Date().toISOString(), ptr: null, service: null, domains: ["shop.example"] },
        { ipAddress: "198.51.100.77", country: "United States", countryCode: "US", city: "Dallas", attemptCount: 5, deliveredCount: 0, threatLevel: "low", lastSeenAt: new Date().toISOString(), ptr: "vps-77.hosting.example", service: null, domains: ["shop.example"] },
      ]);
    const range = /range=(\w+)/.exec(url)?.[1];
    if (range) return json({ range, from: "2026-01-01", to: "2026-01-02", counts: COUNTS[range], unlocated: range === "24h" ? 2 : 0 });
    return json({ error: { code: "not_found", message: "Not found" } }, 404);
  });
}

describe("Threat Map screen", () => {
  test("the map shades the countries with failing mail over the last 24h, and the range buttons switch to 7 and 30 days", async () => {
    const { calls } = serve();
    const { container } = renderWithProviders(<ThreatsPage />, "/app/threats");
    await screen.findByRole("heading", { level: 1, name: "Threat Map" });
    const de = await waitFor(() => {
      const shape = container.querySelector('path[data-country="DE"]');
      if (!shape) throw new Error("no map yet");
      return shape;
    });
    expect(de.getAttribute("data-count")).toBe("120");
    expect(container.querySelector('path[data-country="US"]')!.getAttribute("data-count")).toBe("5");
    expect(container.querySelector('path[data-country="FR"]')!.hasAttribute("data-count")).toBe(false);
    expect(screen.getByRole("button", { name: "Last 24h" }).getAttribute("aria-pressed")).toBe("true");
    expect(screen.getByText(/127 failing messages reported for today and yesterday \(UTC\), 2 from IPs that could not be located/)).toBeTruthy();
    expect(calls.some((c) => c.url === "/api/threats/countries?range=24h")).toBe(true);

    await userEvent.click(screen.getByRole("button", { name: "7 days" }));
    await waitFor(() => expect(container.querySelector('path[data-country="BR"]')?.getAttribute("data-count")).toBe("3"));
    expect(calls.some((c) => c.url === "/api/threats/countries?range=7d")).toBe(true);

    await userEvent.click(screen.getByRole("button", { name: "30 days" }));
    expect(await screen.findByText("No failing mail reported for the last 30 days.")).toBeTruthy();
    expect(container.querySelector("path[data-count]")).toBeNull();
    // the 24-hour threat list stays; an address with a reverse DNS name says it
    expect(container.querySelector('[data-ip="203.0.113.9"]')!.textContent).toContain("203.0.113.9Germany · ");
    expect(container.querySelector('[data-ip="198.51.100.77"]')!.textContent).toContain("vps-77.hosting.example · Dallas, United States");
  });
});
