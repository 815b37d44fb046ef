import { describe, expect, test } from "bun:test";
import { screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { cleanUpAfterEach, json, renderWithProviders, withFetch } from "../../../tests/support/ui";
import { NAMING_REREAD_MS } from "../../lib/naming";
import type { SenderSummary } from "./Senders";
import ReportsPage from ".";

cleanUpAfterEach();

const sender = (over: Partial<SenderSummary>): SenderSummary => ({
  key: `${over.kind ?? "service"}:${over.sender ?? "Google"}`,
  mark: null,
  sender: "Google",
  kind: "service",
  serviceType: "Email Provider",
  messages: 1200,
  passRate: 100,
  spfAlignedRate: 100,
  dkimAlignedRate: 100,
  ips: 3,
  domains: ["example.com"],
  countries: ["US"],
  lastSeen: new Date().toISOString(),
  verdict: "authenticated",
  ...over,
});

const SENDERS = [
  sender({}),
  sender({ sender: "mailer.example.net", kind: "domain", serviceType: null, messages: 50, passRate: 60, spfAlignedRate: 60, dkimAlignedRate: 0, verdict: "partly" }),
  sender({ sender: "203.0.113.9", kind: "ip", serviceType: null, messages: 7, passRate: 0, spfAlignedRate: 0, dkimAlignedRate: 0, verdict: "failing", countries: ["NL"] }),
];

const domains = (names: string[]) => names.map((name, i) => ({ id: `d${i}`, name }));

function serve(senders: (url: string) => SenderSummary[], domainNames = ["example.com"]) {
  return withFetch((url) => {
    if (url.startsWith("/api/senders")) return json(senders(url));
    if (url === "/api/domains") return json(domains(domainNames));
    return json({ error: { code: "not_found", message: "Not found" } }, 404);
  });
}

describe("Senders tab", () => {
  test("comes after Aggregate and lists senders with their verdict in plain words", async () => {
    const { calls } = serve(() => SENDERS);
    renderWithProviders(<ReportsPage />, "/app/reports?tab=senders");
    expect(screen.getAllByRole("tab").map((t) => t.textContent)).toEqual(["Aggregate", "Senders", "Failure", "SMTP TLS"]);
    expect(screen.getByRole("tab", { name: "Senders" }).getAttribute("aria-selected")).toBe("true");
    const rows = await screen.findAllByRole("row");
    const body = rows.filter((r) => r.hasAttribute("data-verdict"));
    expect(body).toHaveLength(3);
    // each sender opens its page
    expect(within(body[0]!).getByRole("link", { name: "Google" }).getAttribute("href")).toBe("/app/senders/service%3AGoogle");
    expect(within(body[2]!).getByRole("link", { name: "203.0.113.9" }).getAttribute("href")).toBe("/app/senders/ip%3A203.0.113.9");
    expect(within(body[0]!).getByText("Authenticated — SPF and DKIM aligned")).toBeTruthy();
    expect(within(body[0]!).getByText("1,200")).toBeTruthy();
    expect(within(body[1]!).getByText("Partly authenticated — 40% of its mail fails DMARC: add it to SPF or have it sign with DKIM for your domain")).toBeTruthy();
    expect(within(body[2]!).getByText("Failing — not authorized to send as you; if you don't know it, this is spoofing")).toBeTruthy();
    expect(within(body[2]!).getByRole("meter").getAttribute("aria-valuenow")).toBe("0");
    expect(calls.some((c) => c.url === "/api/senders?days=30")).toBe(true);
    // one domain: no domain filter
    expect(screen.queryByLabelText("Domain")).toBeNull();
    // no upload box on this tab
    expect(screen.queryByTestId("report-dropzone")).toBeNull();
  });

  test("changing the period or the domain fetches again", async () => {
    const { calls } = serve((url) => (url.includes("days=7") ? [] : SENDERS), ["example.com", "shop.example.com"]);
    renderWithProviders(<ReportsPage />, "/app/reports?tab=senders");
    await screen.findByText("Google");
    await userEvent.selectOptions(screen.getByLabelText("Period"), "7");
    expect(await screen.findByText("No senders seen yet")).toBeTruthy();
    expect(calls.some((c) => c.url === "/api/senders?days=7")).toBe(true);
    await userEvent.selectOptions(await screen.findByLabelText("Domain"), "shop.example.com");
    await waitFor(() => expect(calls.some((c) => c.url === "/api/senders?days=7&domain=shop.example.com")).toBe(true));
  });

  test("addresses listed with no name are read again a few seconds later, until their senders show; a list of named senders is not read again", async () => {
    let reads = 0;
    const named = [sender({}), sender({ sender: "Twilio SendGrid", serviceType: "Marketing", messages: 7, key: "service:Twilio SendGrid" })];
    serve(() => (++reads === 1 ? SENDERS : named));
    renderWithProviders(<ReportsPage />, "/app/reports?tab=senders");
    expect(await screen.findByRole("link", { name: "203.0.113.9" })).toBeTruthy();
    // the server looks the names up as it lists the addresses: the list is read again and shows the sender
    expect(await screen.findByRole("link", { name: "Twilio SendGrid" }, { timeout: NAMING_REREAD_MS + 3000 })).toBeTruthy();
    expect(screen.queryByRole("link", { name: "203.0.113.9" })).toBeNull();
    expect(reads).toBe(2);
    // nothing unnamed is left: no further read
    await new Promise((resolve) => setTimeout(resolve, NAMING_REREAD_MS + 500));
    expect(reads).toBe(2);
  }, 20_000);

  test("an empty organization sees the empty state", async () => {
    serve(() => []);
    renderWithProviders(<ReportsPage />, "/app/reports?tab=senders");
    expect(await screen.findByText("No senders seen yet")).toBeTruthy();
    expect(screen.getByText(/every service and server sending as you shows up here/)).toBeTruthy();
  });
});
