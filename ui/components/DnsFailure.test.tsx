/**
 * DNS failures are not findings, on screen: the lookup shows "Could not check" and no Invalid,
 * Vulnerable or setup advice; the domain table shows "Not checked yet" and "Check failed" with
 * the last good result and its time.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { render, screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { MemoryRouter } from "react-router";
import { analyzeDomain, type DnsAnalysis } from "../../src/features/dns/analyze";
import { createResolver } from "../../src/features/dns/resolver";
import { startDnsServer, type TestDnsServer } from "../../tests/support/dns-server";
import { cleanUpAfterEach, json, renderWithProviders, withFetch } from "../../tests/support/ui";
import { DnsLookupTool } from "./DnsLookupTool";
import { DomainStatusTable, type DomainStatusRow } from "./DomainStatusTable";

let dns: TestDnsServer;
let failed: DnsAnalysis;
beforeAll(async () => {
  dns = await startDnsServer({ "down.test": { servfail: true }, "*.down.test": { servfail: true }, test: { servfail: true } });
  const resolver = createResolver({ servers: [{ host: dns.host, port: dns.port }], timeoutMs: 300, cache: false });
  failed = JSON.parse(JSON.stringify(await analyzeDomain(resolver, "down.test")));
});
afterAll(() => dns.close());
cleanUpAfterEach();

describe("the lookup when the DNS server did not answer", () => {
  test("each record says Could not check; nothing reads Invalid, Vulnerable or Not set up", async () => {
    withFetch(() => json(failed));
    renderWithProviders(<DnsLookupTool />);
    await userEvent.type(screen.getByPlaceholderText("Enter domain (e.g., example.com)"), "down.test{Enter}");
    await screen.findByRole("heading", { name: "down.test" });
    for (const name of ["DMARC", "SPF", "DKIM"]) {
      const card = screen.getByRole("region", { name: `${name} result` });
      expect(within(card).getByText("Could not check")).toBeTruthy();
      expect(within(card).getByText("Could not check (DNS server did not answer)")).toBeTruthy();
    }
    expect(screen.getAllByText(/Could not check \(DNS server did not answer\)\. No verdict/)).toHaveLength(1);
    const text = document.body.textContent ?? "";
    for (const verdict of ["Invalid", "Vulnerable", "Not set up", "Not Found", "No record found", "Publish a TXT record"]) expect([verdict, text.includes(verdict)]).toEqual([verdict, false]);
  });
});

describe("the domain status table", () => {
  const now = new Date("2026-03-01T17:00:00Z");
  const rows: DomainStatusRow[] = [
    { id: "1", name: "new.test", dmarcPolicy: null, spfStatus: null, dkimStatus: null, overallStatus: "pending", lastReportAt: null, lastCheckedAt: null, checkFailedAt: null },
    { id: "2", name: "never.test", dmarcPolicy: null, spfStatus: null, dkimStatus: null, overallStatus: "pending", lastReportAt: null, lastCheckedAt: null, checkFailedAt: "2026-03-01T16:55:00Z" },
    { id: "3", name: "was-good.test", dmarcPolicy: "reject", spfStatus: "valid", dkimStatus: "valid", overallStatus: "protected", lastReportAt: null, lastCheckedAt: "2026-03-01T14:00:00Z", checkFailedAt: "2026-03-01T16:59:00Z" },
    { id: "4", name: "fine.test", dmarcPolicy: "reject", spfStatus: "valid", dkimStatus: "valid", overallStatus: "protected", lastReportAt: null, lastCheckedAt: "2026-03-01T16:00:00Z", checkFailedAt: null },
  ];

  test("not checked yet, check failed (with the last good result and its time), checked", () => {
    render(
      <MemoryRouter>
        <DomainStatusTable domains={rows} now={now} />
      </MemoryRouter>,
    );
    const row = (name: string) => screen.getAllByRole("row").find((r) => r.textContent?.includes(name))!;
    expect(within(row("new.test")).getByText("Not checked yet")).toBeTruthy();
    expect(within(row("never.test")).getByText("Check failed")).toBeTruthy();
    expect(within(row("never.test")).getByText("never checked")).toBeTruthy();
    expect(within(row("was-good.test")).getByText("Check failed")).toBeTruthy();
    expect(within(row("was-good.test")).getByText("last good: Protected, 3h ago")).toBeTruthy();
    expect(within(row("fine.test")).getByText("Protected")).toBeTruthy();
    expect(within(row("fine.test")).queryByText("Check failed")).toBeNull();
  });
});
