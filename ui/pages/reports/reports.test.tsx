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

/** A stand-in for the server's paging and filters: pages of `limit` by cursor (the index as text), domain and failures. */
function serve() {
  return withFetch((url) => {
    const u = new URL(url, "http://localhost");
    if (u.pathname === "/api/domains") return json([{ id: "da", name: "a.example" }, { id: "db", name: "b.example" }]);
    if (u.pathname !== "/api/dmarc-reports") return json({ error: { code: "not_found", message: "No such endpoint." } }, 404);
    if (u.searchParams.get("from") && u.searchParams.get("from")! > (u.searchParams.get("to") ?? "9")) return json({ error: { code: "validation_error", message: "from must be on or before to." } }, 400);
    let list = reports;
    const domain = u.searchParams.get("domain");
    if (domain) list = list.filter((r) => r.domain === domain);
    if (u.searchParams.get("failures") === "1") list = list.filter((r) => r.passRate < 100);
    const q = u.searchParams.get("q");
    if (q) list = list.filter((r) => r.orgName.includes(q));
    const limit = Number(u.searchParams.get("limit"));
    const start = Number(u.searchParams.get("cursor") ?? 0);
    const page = list.slice(start, start + limit);
    const headers: Record<string, string> = start + limit < list.length ? { "x-next-cursor": String(start + limit) } : {};
    return new Response(JSON.stringify(page), { status: 200, headers: { "content-type": "application/json", ...headers } });
  });
}

const rows = () => within(screen.getByRole("region", { name: "Reports" })).getAllByRole("row").slice(1);
const reporters = () => rows().map((r) => within(r).getAllByRole("button")[0]!.textContent);

describe("reports list: paged by the server, with filters", () => {
  test("Load more appends the next page by cursor until the last", async () => {
    const user = userEvent.setup();
    const fetches = serve();
    renderWithProviders(<ReportsPage />, "/app/reports");
    expect(await screen.findByText("Showing 25 reports (more to load)")).toBeTruthy();
    expect(reporters()[0]).toBe("reporter-0.example");
    await user.click(screen.getByRole("button", { name: "Load more" }));
    expect(await screen.findByText("Showing 50 reports (more to load)")).toBeTruthy();
    expect(reporters()[25]).toBe("reporter-25.example");
    await user.click(screen.getByRole("button", { name: "Load more" }));
    expect(await screen.findByText("Showing 60 reports")).toBeTruthy();
    expect(screen.queryByRole("button", { name: "Load more" })).toBeNull();
    expect(fetches.calls.some((c) => c.url.includes("cursor=50"))).toBe(true);
  });

  test("a domain, failures only and a search go to the server; Clear shows everything again", async () => {
    const user = userEvent.setup();
    const fetches = serve();
    renderWithProviders(<ReportsPage />, "/app/reports");
    await screen.findByText("Showing 25 reports (more to load)");
    const select = (await screen.findByRole("combobox", { name: "Domain" })) as HTMLSelectElement;
    await screen.findByRole("option", { name: "b.example" });
    await user.selectOptions(select, "b.example");
    expect(await screen.findByText("Showing 20 reports")).toBeTruthy();
    expect(rows().every((r) => r.textContent!.includes("b.example"))).toBe(true);
    expect(screen.getByRole("link", { name: /Download CSV/ }).getAttribute("href")).toBe("/api/records.csv?days=30&domain=b.example");

    await user.type(screen.getByLabelText("Search reporter or report ID"), "reporter-3.");
    await user.click(screen.getByRole("button", { name: "Apply" }));
    expect(await screen.findByText("Showing 1 report")).toBeTruthy();
    expect(fetches.calls.some((c) => c.url.includes("domain=b.example") && c.url.includes("q=reporter-3."))).toBe(true);

    await user.click(screen.getByRole("button", { name: "Clear" }));
    expect(await screen.findByText("Showing 25 reports (more to load)")).toBeTruthy();
  });

  test("a start date after the end date is refused before asking the server", async () => {
    const user = userEvent.setup();
    serve();
    renderWithProviders(<ReportsPage />, "/app/reports");
    await screen.findByText("Showing 25 reports (more to load)");
    await user.type(screen.getByLabelText("Period from"), "2025-02-01");
    await user.type(screen.getByLabelText("Period to"), "2025-01-01");
    await user.click(screen.getByRole("button", { name: "Apply" }));
    expect((await screen.findByRole("alert")).textContent).toBe("The start date must be on or before the end date.");
  });
});
