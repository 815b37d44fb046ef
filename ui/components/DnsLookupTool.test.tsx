import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { cleanup, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { analyzeDomain, type DnsAnalysis } from "../../src/features/dns/analyze";
import { createResolver } from "../../src/features/dns/resolver";
import { fixtureZone, startDnsServer, type TestDnsServer } from "../../tests/support/dns-server";
import { cleanUpAfterEach, json, renderWithProviders, withFetch } from "../../tests/support/ui";
import { DnsLookupTool } from "./DnsLookupTool";

// Real analyses of the fixture zones, served by a fetch stand-in answering like the server.
let dns: TestDnsServer;
const analyses: Record<string, DnsAnalysis> = {};
beforeAll(async () => {
  dns = await startDnsServer(fixtureZone());
  const resolver = createResolver({ servers: [{ host: dns.host, port: dns.port }], timeoutMs: 500 });
  for (const d of ["good.test", "toomany.test", "missing.test", "weak.test"]) analyses[d] = JSON.parse(JSON.stringify(await analyzeDomain(resolver, d)));
});
afterAll(() => dns.close());

cleanUpAfterEach();

function serve() {
  const f = withFetch((_url, init) => {
    const { domain } = JSON.parse(String(init.body));
    const a = analyses[domain];
    return a ? json(a) : json({ error: { code: "internal_error", message: "Something went wrong on our side." } }, 500);
  });
  return f;
}

const input = () => screen.getByPlaceholderText("Enter domain (e.g., example.com)");
const card = (name: string) => screen.getByRole("region", { name: `${name} result` });

describe("DnsLookupTool", () => {
  test("an empty domain toasts Domain Required and calls nothing", async () => {
    const f = serve();
    renderWithProviders(<DnsLookupTool />);
    await userEvent.click(screen.getByRole("button", { name: /lookup/i }));
    expect(await screen.findByText("Domain Required")).toBeTruthy();
    expect(screen.getByText("Please enter a domain name")).toBeTruthy();
    expect(f.calls).toHaveLength(0);
  });

  test("a malformed domain toasts Invalid Domain", async () => {
    const f = serve();
    renderWithProviders(<DnsLookupTool />);
    await userEvent.type(input(), "not a domain{Enter}");
    expect(await screen.findByText("Invalid Domain")).toBeTruthy();
    expect(screen.getByText("Please enter a valid domain name (e.g., example.com)")).toBeTruthy();
    expect(f.calls).toHaveLength(0);
  });

  test("Enter submits the trimmed domain; each record shows its Valid badge and details", async () => {
    const f = serve();
    renderWithProviders(<DnsLookupTool />);
    await userEvent.type(input(), "  good.test {Enter}");
    await waitFor(() => expect(screen.getByRole("region", { name: "DMARC result" })).toBeTruthy());
    expect(f.calls[0]!.url).toBe("/api/dns-lookup");
    expect(JSON.parse(String(f.calls[0]!.init.body))).toEqual({ domain: "good.test" });
    for (const name of ["DMARC", "SPF", "DKIM"]) expect(within(card(name)).getByText("Valid")).toBeTruthy();
    expect(within(card("DMARC")).getByText("Reject")).toBeTruthy();
    expect(within(card("DMARC")).getByText(/v=DMARC1; p=reject/)).toBeTruthy();
    expect(within(card("DMARC")).getByText(/your domain is protected against spoofing/)).toBeTruthy();
    expect(within(card("DKIM")).getByText(/selector1 \(RSA 2048-bit\)/)).toBeTruthy();
    expect(screen.getByText("Protected")).toBeTruthy();
  });

  test("missing records: Invalid, Not Found for DKIM, and the error messages", async () => {
    serve();
    renderWithProviders(<DnsLookupTool />);
    await userEvent.type(input(), "missing.test");
    await userEvent.click(screen.getByRole("button", { name: /lookup/i }));
    await waitFor(() => expect(screen.getByRole("region", { name: "DKIM result" })).toBeTruthy());
    expect(within(card("DMARC")).getByText("Invalid")).toBeTruthy();
    expect(within(card("SPF")).getByText("Invalid")).toBeTruthy();
    expect(within(card("DKIM")).getByText("Not Found")).toBeTruthy();
    expect(within(card("DMARC")).getAllByText(/No DMARC record found at _dmarc.missing.test/).length).toBeGreaterThan(0);
    expect(within(card("DKIM")).getAllByText(/No DKIM key found for missing.test/).length).toBeGreaterThan(0);
  });

  test("problems come with the status badge and the fix to make", async () => {
    serve();
    renderWithProviders(<DnsLookupTool />);
    await userEvent.type(input(), "toomany.test{Enter}");
    await waitFor(() => expect(screen.getByRole("region", { name: "SPF result" })).toBeTruthy());
    expect(within(card("SPF")).getByText("Too many lookups")).toBeTruthy();
    expect(within(card("SPF")).getByText("Invalid")).toBeTruthy();
    await userEvent.click(within(card("SPF")).getByText(/Details and fixes/));
    expect(within(card("SPF")).getAllByText(/How to fix/).length).toBeGreaterThan(0);
    expect(within(card("SPF")).getAllByText(/until the count is 10 or less/).length).toBeGreaterThan(0);
    expect(within(card("SPF")).getByText("include:n1.toomany.test")).toBeTruthy();
  });

  test("the other records list DNSSEC (Not signed, a note), each MX host and a fetched MTA-STS policy", async () => {
    const good = analyses["good.test"]!;
    analyses["deep.example"] = {
      ...good,
      domain: "deep.example",
      extras: {
        ...good.extras,
        mx: { ...good.extras.mx, details: { ...good.extras.mx.details, hostChecks: [{ host: "mx1.good.test", resolvable: "ok", addresses: ["192.0.2.25"], tls: { outcome: "no_starttls" } }] } },
        mtaSts: { ...good.extras.mtaSts, details: { policy: { version: "STSv1", mode: "testing", maxAge: 86400, mx: ["*.good.test"] } } },
      },
    };
    serve();
    renderWithProviders(<DnsLookupTool />);
    await userEvent.type(input(), "deep.example{Enter}");
    const other = await screen.findByRole("region", { name: "Other records" });
    expect(within(other).getByText("DNSSEC")).toBeTruthy();
    expect(within(other).getByText("Not signed")).toBeTruthy();
    expect(within(other).getByText(/is not signed with DNSSEC/)).toBeTruthy();
    expect(within(other).getByText("no STARTTLS")).toBeTruthy();
    expect(within(other).getByText(/Policy file: mode/)).toBeTruthy();
  });

  test("a weak DKIM key shows Invalid with the Weak key badge", async () => {
    serve();
    renderWithProviders(<DnsLookupTool />);
    await userEvent.type(input(), "weak.test{Enter}");
    await waitFor(() => expect(screen.getByRole("region", { name: "DKIM result" })).toBeTruthy());
    expect(within(card("DKIM")).getByText("Weak key")).toBeTruthy();
    expect(within(card("DKIM")).getByText("Invalid")).toBeTruthy();
    expect(within(card("DKIM")).getAllByText(/only 512 bits/).length).toBeGreaterThan(0);
  });

  test("a server failure toasts DNS Lookup Failed with the error's message", async () => {
    serve();
    renderWithProviders(<DnsLookupTool />);
    await userEvent.type(input(), "other.test{Enter}");
    expect(await screen.findByText("DNS Lookup Failed")).toBeTruthy();
    expect(screen.getByText("Something went wrong on our side.")).toBeTruthy();
  });

  test("typed selectors are sent; compact mode hides the selector field", async () => {
    const f = serve();
    renderWithProviders(<DnsLookupTool />);
    await userEvent.type(screen.getByPlaceholderText("e.g. selector1, google"), "brand2024, s9");
    await userEvent.type(input(), "good.test{Enter}");
    await waitFor(() => expect(f.calls).toHaveLength(1));
    expect(JSON.parse(String(f.calls[0]!.init.body))).toEqual({ domain: "good.test", selectors: ["brand2024", "s9"] });
    cleanup();
    renderWithProviders(<DnsLookupTool compact />);
    expect(screen.queryByPlaceholderText("e.g. selector1, google")).toBeNull();
  });
});
