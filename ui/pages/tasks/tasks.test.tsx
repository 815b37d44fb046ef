import { describe, expect, test } from "bun:test";
import { screen } from "@testing-library/react";
import { cleanUpAfterEach, json, renderWithProviders, withFetch } from "../../../tests/support/ui";
import TasksPage from "./index";

cleanUpAfterEach();

const domain = (lastReportAt: string | null) => ({ id: "d1", name: "acme.example", dmarcPolicy: "none", spfStatus: "valid", dkimStatus: "valid", overallStatus: "partial", lastReportAt, lastCheckedAt: null, createdAt: "2025-06-01T00:00:00Z" });

function serve(domains: unknown[]) {
  withFetch((url) => (url === "/api/tasks" ? json([]) : url === "/api/domains" ? json(domains) : json({ error: { message: "no" } }, 404)));
}

describe("Tasks & Issues with nothing to do (SPEC §8 No active tasks or issues)", () => {
  test("no domains: says none is monitored and links to Domains, not that records look right", async () => {
    serve([]);
    renderWithProviders(<TasksPage />, "/app/tasks");
    expect(await screen.findByText("No active tasks or issues")).toBeTruthy();
    expect((await screen.findByRole("link", { name: "Add a domain" })).getAttribute("href")).toBe("/app/domains");
    expect(screen.queryByText(/records look right/)).toBeNull();
  });

  test("domains without reports: only the DNS records are vouched for", async () => {
    serve([domain(null)]);
    renderWithProviders(<TasksPage />, "/app/tasks");
    expect(await screen.findByText(/Tasks about who sends mail as your domains appear once reports arrive/)).toBeTruthy();
    expect(screen.queryByText(/your reports show nothing to fix/)).toBeNull();
  });

  test("domains with reports: the usual all-clear", async () => {
    serve([domain("2025-06-01T00:00:00Z")]);
    renderWithProviders(<TasksPage />, "/app/tasks");
    expect(await screen.findByText("Every domain's records look right and your reports show nothing to fix.")).toBeTruthy();
  });
});
