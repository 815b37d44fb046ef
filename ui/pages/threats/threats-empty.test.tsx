import { describe, expect, test } from "bun:test";
import { screen } from "@testing-library/react";
import { cleanUpAfterEach, json, renderWithProviders, withFetch } from "../../../tests/support/ui";
import ThreatsPage from ".";

cleanUpAfterEach();

function serve(domains: unknown[]) {
  withFetch((url) => {
    if (url === "/api/ip-threats") return json([]);
    if (url === "/api/domains") return json(domains);
    const range = /range=(\w+)/.exec(url)?.[1];
    if (range) return json({ range, from: "2026-01-01", to: "2026-01-02", counts: {}, unlocated: 0 });
    return json({ error: { code: "not_found", message: "Not found" } }, 404);
  });
}

describe("Threat Map with no threats", () => {
  test("an organization without domains is not told its domains are secure", async () => {
    serve([]);
    renderWithProviders(<ThreatsPage />, "/app/threats");
    expect(await screen.findByText(/No domain is monitored yet/)).toBeTruthy();
    expect(screen.queryByText(/currently secure/)).toBeNull();
  });

  test("with reports, SPEC's No Active Threats wording stays", async () => {
    serve([{ id: "d1", name: "acme.example", dmarcPolicy: "reject", spfStatus: "valid", dkimStatus: "valid", overallStatus: "protected", lastReportAt: "2026-01-01T00:00:00Z", lastCheckedAt: null, createdAt: "2025-12-01T00:00:00Z" }]);
    renderWithProviders(<ThreatsPage />, "/app/threats");
    expect(await screen.findByText("Your domains are currently secure from malicious activity.")).toBeTruthy();
  });
});
