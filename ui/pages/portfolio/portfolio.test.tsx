import { describe, expect, test } from "bun:test";
import { fireEvent, screen, waitFor, within } from "@testing-library/react";
import { cleanUpAfterEach, json, renderWithProviders, withFetch } from "../../../tests/support/ui";
import type { OrgSummary } from "../../lib/auth";
import type { PortfolioClient } from "./api";
import PortfolioPage from "./index";
import { applyView, DEFAULT_VIEW, sortBy } from "./view";

cleanUpAfterEach();

const msp: OrgSummary = { id: "msp", name: "Northwind IT", slug: "northwind", parentId: null, role: "owner" };
const me = (current: OrgSummary = msp) => ({ user: { id: "u", name: "Mia", email: "mia@example.test" }, organizations: [msp, { id: "c1", name: "Acme Dental", slug: "a", parentId: "msp", role: "owner" }], currentOrg: current });

const client = (over: Partial<PortfolioClient>): PortfolioClient => ({
  id: "c",
  name: "Client",
  plan: "scale",
  domains: 1,
  worstStatus: "protected",
  passRate7d: 99,
  passRate30d: 98.5,
  messages7d: 100,
  failingSources7d: 0,
  openTasks: 0,
  alerts7d: 0,
  lastReportAt: "2026-01-01T00:00:00Z",
  policyMix: { reject: 1, quarantine: 0, none: 0, missing: 0 },
  ...over,
});
const CLIENTS = [
  client({ id: "c1", name: "Acme Dental", domains: 2, worstStatus: "vulnerable", passRate7d: 72, openTasks: 3, failingSources7d: 4 }),
  client({ id: "c2", name: "Baker Law", worstStatus: "protected", passRate7d: 99.5 }),
  client({ id: "c3", name: "Cedar Realty", domains: 0, worstStatus: null, passRate7d: null, passRate30d: null, messages7d: 0, lastReportAt: null, policyMix: { reject: 0, quarantine: 0, none: 0, missing: 0 } }),
];

const names = () => within(screen.getByRole("table")).getAllByRole("rowheader").map((c) => c.textContent?.replace(/Scale.*$/, ""));

describe("the portfolio's search, filter and sort", () => {
  test("worst status first by default; clients without domains last; a header click flips the order", () => {
    expect(applyView(CLIENTS, DEFAULT_VIEW).map((c) => c.name)).toEqual(["Acme Dental", "Baker Law", "Cedar Realty"]);
    const byPass = sortBy(DEFAULT_VIEW, "passRate7d");
    expect(applyView(CLIENTS, byPass).map((c) => c.name)).toEqual(["Acme Dental", "Baker Law", "Cedar Realty"]);
    expect(applyView(CLIENTS, sortBy(byPass, "passRate7d")).map((c) => c.name)).toEqual(["Baker Law", "Acme Dental", "Cedar Realty"]);
    expect(applyView(CLIENTS, { ...DEFAULT_VIEW, status: "no-domains" }).map((c) => c.name)).toEqual(["Cedar Realty"]);
    expect(applyView(CLIENTS, { ...DEFAULT_VIEW, status: "attention" }).map((c) => c.name)).toEqual(["Acme Dental"]);
    expect(applyView(CLIENTS, { ...DEFAULT_VIEW, search: "  law " }).map((c) => c.name)).toEqual(["Baker Law"]);
  });
});

describe("Portfolio screen", () => {
  function serve() {
    return withFetch((url, init) => {
      if (url === "/api/auth/me") return json(me());
      if (url === "/api/portfolio") return json({ clients: CLIENTS });
      if (url === "/api/orgs/c2/switch") return json(me({ ...msp, id: "c2", name: "Baker Law", parentId: "msp" }));
      if (url === "/api/portfolio/import") {
        const body = JSON.parse(String(init.body));
        return json({
          dryRun: body.dryRun,
          rows: [
            { line: 1, clientName: "New Co", domain: "new.example", status: "created", clientCreated: true },
            { line: 2, clientName: "New Co", domain: "not a domain", status: "error", error: "Please enter a valid domain name (e.g., example.com)" },
          ],
          summary: { created: 1, exists: 0, errors: 1, clientsCreated: 1 },
        });
      }
      return json({ error: { message: "no" } }, 404);
    });
  }

  test("lists every client; search, status filter and header sort change the rows", async () => {
    serve();
    renderWithProviders(<PortfolioPage />, "/app/portfolio");
    await screen.findByRole("table");
    expect(names()).toEqual(["Acme Dental", "Baker Law", "Cedar Realty"]);
    const table = screen.getByRole("table");
    expect(within(table).getByText("72%")).toBeTruthy();
    expect(within(table).getByText("Vulnerable")).toBeTruthy();
    expect(within(table).getByText("None yet")).toBeTruthy();

    fireEvent.click(within(table).getByRole("button", { name: /Pass rate 7d/ }));
    fireEvent.click(within(table).getByRole("button", { name: /Pass rate 7d/ }));
    expect(names()).toEqual(["Baker Law", "Acme Dental", "Cedar Realty"]);

    fireEvent.change(screen.getByRole("searchbox"), { target: { value: "acme" } });
    expect(names()).toEqual(["Acme Dental"]);
    expect(screen.getByText("1 of 3 clients")).toBeTruthy();
    fireEvent.change(screen.getByRole("searchbox"), { target: { value: "" } });
    fireEvent.change(screen.getByRole("combobox", { name: "Status" }), { target: { value: "no-domains" } });
    expect(names()).toEqual(["Cedar Realty"]);
  });

  test("Open switches into the client through the organization switch", async () => {
    const { calls } = serve();
    renderWithProviders(<PortfolioPage />, "/app/portfolio");
    const table = await screen.findByRole("table");
    fireEvent.click(within(table).getByRole("button", { name: "Open Baker Law" }));
    await waitFor(() => expect(calls.some((c) => c.url === "/api/orgs/c2/switch" && c.init.method === "POST")).toBe(true));
  });

  test("bulk onboarding: preview (a dry run), the rows with their errors, then import", async () => {
    const { calls } = serve();
    renderWithProviders(<PortfolioPage />, "/app/portfolio");
    await screen.findByRole("table");
    fireEvent.change(screen.getByRole("textbox", { name: "CSV" }), { target: { value: "New Co, new.example\nNew Co, not a domain" } });
    fireEvent.click(screen.getByRole("button", { name: "Preview import" }));
    const preview = await screen.findByRole("region", { name: "Import preview" });
    expect(within(preview).getByText("Will be added (new client)")).toBeTruthy();
    expect(within(preview).getByText("Please enter a valid domain name (e.g., example.com)")).toBeTruthy();
    expect(JSON.parse(String(calls.find((c) => c.url === "/api/portfolio/import")!.init.body))).toEqual({ csv: "New Co, new.example\nNew Co, not a domain", dryRun: true });

    fireEvent.click(screen.getByRole("button", { name: "Import 1 domain" }));
    const result = await screen.findByRole("region", { name: "Import result" });
    expect(within(result).getByText("Added (client created)")).toBeTruthy();
    expect(JSON.parse(String(calls.filter((c) => c.url === "/api/portfolio/import").at(-1)!.init.body)).dryRun).toBe(false);
  });

  test("Client report: the contacts one per line, the switch and last sent; the server's refusal shown in the dialog; Save sends the list", async () => {
    let saved = { contacts: ["office@acmedental.example"], enabled: false, lastSentAt: "2026-05-11T09:00:00Z", lastFailures: [{ to: "old@acmedental.example", error: "550 no such mailbox" }], lastFailedAt: "2026-05-11T09:00:00Z" };
    const { calls } = withFetch((url, init) => {
      if (url === "/api/auth/me") return json(me());
      if (url === "/api/portfolio") return json({ clients: CLIENTS });
      if (url === "/api/portfolio/clients/c1/report" && (init.method ?? "GET") === "GET") return json(saved);
      if (url === "/api/portfolio/clients/c1/report" && init.method === "PUT") {
        const body = JSON.parse(String(init.body));
        const bad = body.contacts.find((c: string) => !c.includes("@"));
        if (bad) return json({ error: { code: "validation_failed", message: `"${bad}" is not a valid email address. Correct or remove it.`, fields: { contacts: `"${bad}" is not a valid email address. Correct or remove it.` } } }, 400);
        saved = { ...saved, ...body, lastFailures: [] };
        return json(saved);
      }
      return json({ error: { message: "no" } }, 404);
    });
    renderWithProviders(<PortfolioPage />, "/app/portfolio");
    const table = await screen.findByRole("table");
    fireEvent.click(within(table).getByRole("button", { name: "Client report of Acme Dental" }));
    const dialog = await screen.findByRole("dialog", { name: "Client report" });
    const box = (await within(dialog).findByRole("textbox", { name: "Contacts" })) as HTMLTextAreaElement;
    expect(box.value).toBe("office@acmedental.example");
    expect(within(dialog).getByText("old@acmedental.example")).toBeTruthy();
    const toggle = within(dialog).getByRole("checkbox", { name: /Send the weekly report to these contacts/ }) as HTMLInputElement;
    expect(toggle.checked).toBe(false);

    fireEvent.change(box, { target: { value: "office@acmedental.example\nnot-an-address" } });
    fireEvent.click(toggle);
    fireEvent.click(within(dialog).getByRole("button", { name: "Save" }));
    expect((await within(dialog).findByRole("alert")).textContent).toContain('"not-an-address" is not a valid email address');
    expect(screen.getByRole("dialog", { name: "Client report" })).toBeTruthy();

    // eleven addresses: refused here, before any request
    const puts = () => calls.filter((c) => c.url === "/api/portfolio/clients/c1/report" && c.init.method === "PUT").length;
    const before = puts();
    fireEvent.change(box, { target: { value: Array.from({ length: 11 }, (_, i) => `c${i}@acmedental.example`).join("\n") } });
    fireEvent.click(within(dialog).getByRole("button", { name: "Save" }));
    expect((await within(dialog).findByRole("alert")).textContent).toContain("at most 10");
    expect(puts()).toBe(before);

    fireEvent.change(box, { target: { value: " office@acmedental.example \n\nit@acmedental.example" } });
    fireEvent.click(within(dialog).getByRole("button", { name: "Save" }));
    // (a boolean: a failed expectation on a DOM element prints the whole document)
    await waitFor(() => expect(screen.queryByRole("dialog") === null).toBe(true));
    const put = calls.filter((c) => c.url === "/api/portfolio/clients/c1/report" && c.init.method === "PUT").at(-1)!;
    expect(JSON.parse(String(put.init.body))).toEqual({ contacts: ["office@acmedental.example", "it@acmedental.example"], enabled: true });
  });

  test("inside a client organization: the portfolio belongs to its managing organization", async () => {
    withFetch((url) => (url === "/api/auth/me" ? json(me({ id: "c1", name: "Acme Dental", slug: "a", parentId: "msp", role: "owner" })) : json({ error: { message: "no" } }, 403)));
    renderWithProviders(<PortfolioPage />, "/app/portfolio");
    expect(await screen.findByText("Acme Dental is a client organization")).toBeTruthy();
    expect(screen.getByRole("button", { name: "Switch to Northwind IT" })).toBeTruthy();
  });
});
