import { describe, expect, test } from "bun:test";
import { screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { cleanUpAfterEach, json, renderWithProviders, withFetch } from "../../../tests/support/ui";
import type { DmarcReportSummary } from "./api";
import ReportsPage from ".";

cleanUpAfterEach();

/** 60 reports, newest first: every third one for b.example, the rest for a.example. */
const reports: DmarcReportSummary[] = Array.from({ length: 60 }, (_, i) => {
  const at = new Date(Date.UTC(2025, 0, 1) - i * 3_600_000).toISOString();
  return {
    id: `r${i}`,
    orgName: `reporter-${i}.example`,
    totalMessages: 100,
    passRate: 99,
    processedAt: at,
    domain: i % 3 === 0 ? "b.example" : "a.example",
    reportId: `id-${i}`,
    recordCount: 1,
    dateBegin: at,
    dateEnd: at,
    source: "upload",
  };
});

function serve() {
  return withFetch((url) => {
    const path = new URL(url, "http://localhost").pathname;
    if (path === "/api/dmarc-reports") return json(reports);
    return json({ error: { code: "not_found", message: "No such endpoint." } }, 404);
  });
}

const rows = () => within(screen.getByRole("region", { name: "Reports" })).getAllByRole("row").slice(1);
const reporters = () => rows().map((r) => within(r).getAllByRole("button")[0]!.textContent);
const button = (name: RegExp) => screen.getByRole("button", { name }) as HTMLButtonElement;

describe("reports list: pages of 25 and a domain filter", () => {
  test("Previous/Next move through pages of 25 with Showing x–y of n", async () => {
    const user = userEvent.setup();
    serve();
    renderWithProviders(<ReportsPage />, "/app/reports");
    expect(await screen.findByText("Showing 1–25 of 60")).toBeTruthy();
    expect(rows()).toHaveLength(25);
    expect(reporters()[0]).toBe("reporter-0.example");
    expect(button(/Previous/).disabled).toBe(true);

    await user.click(button(/Next/));
    expect(screen.getByText("Showing 26–50 of 60")).toBeTruthy();
    expect(reporters()[0]).toBe("reporter-25.example");
    await user.click(button(/Next/));
    expect(screen.getByText("Showing 51–60 of 60")).toBeTruthy();
    expect(rows()).toHaveLength(10);
    expect(button(/Next/).disabled).toBe(true);

    await user.click(button(/Previous/));
    expect(screen.getByText("Showing 26–50 of 60")).toBeTruthy();
  });

  test("choosing a domain lists only its reports, from the first page", async () => {
    const user = userEvent.setup();
    serve();
    renderWithProviders(<ReportsPage />, "/app/reports");
    await screen.findByText("Showing 1–25 of 60");
    await user.click(button(/Next/));
    const select = screen.getByLabelText("Domain") as HTMLSelectElement;
    expect([...select.options].map((o) => o.textContent)).toEqual(["All domains", "a.example", "b.example"]);

    await user.selectOptions(select, "b.example");
    expect(screen.getByText("Showing 1–20 of 20")).toBeTruthy();
    expect(rows()).toHaveLength(20);
    expect(rows().every((r) => r.textContent!.includes("b.example"))).toBe(true);
    expect(screen.queryByRole("button", { name: /Next/ })).toBeNull();

    await user.selectOptions(select, "a.example");
    expect(screen.getByText("Showing 1–25 of 40")).toBeTruthy();
    expect(rows().every((r) => r.textContent!.includes("a.example"))).toBe(true);

    await user.selectOptions(select, "");
    expect(screen.getByText("Showing 1–25 of 60")).toBeTruthy();
  });
});
