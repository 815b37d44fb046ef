import { describe, expect, test } from "bun:test";
import { screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { cleanUpAfterEach, json, renderWithProviders, withFetch } from "../../../tests/support/ui";
import type { DmarcReportSummary, FailureReportDetail, TlsReportDetail } from "./api";
import ReportsPage from ".";

cleanUpAfterEach();

const aggregate: DmarcReportSummary[] = [
  { id: "agg-1", orgName: "google.com", totalMessages: 120, passRate: 97.5, processedAt: "2025-01-02T00:00:00Z", domain: "example.com", reportId: "g-1", recordCount: 3, dateBegin: "2025-01-01T00:00:00Z", dateEnd: "2025-01-01T23:59:59Z", source: "upload" },
];

const failure: FailureReportDetail = {
  id: "ruf-1",
  domain: "example.com",
  reporterOrg: "reporter.example",
  sourceIp: "203.0.113.9",
  country: "NL",
  arrivalDate: "2025-01-02T09:59:00.000Z",
  authFailure: "dmarc",
  originalFrom: "Boss <boss@example.com>",
  originalSubject: "Urgent wire transfer",
  reportId: "<arf-1@reporter.example>",
  feedbackType: "auth-failure",
  ptr: null,
  authenticationResults: "mx.reporter.example; dmarc=fail header.from=example.com",
  identityAlignment: "none",
  deliveryResult: "reject",
  dkimDomain: null,
  dkimSelector: null,
  spfDns: null,
  originalMailFrom: "bounce@spoof.example",
  originalRcptTo: "victim@reporter.example",
  originalMessageId: "<orig-1@example.com>",
  originalHeaders: "From: Boss <boss@example.com>\nSubject: Urgent wire transfer\nX-Mailer: spoofer 1.0",
  plainText: false,
  source: "smtp",
  fileName: null,
  processedAt: "2025-01-02T10:00:00.000Z",
};

const tls: TlsReportDetail = {
  id: "tls-1",
  policyDomain: "example.com",
  reporterOrg: "Google Inc.",
  dateBegin: "2025-01-01T00:00:00.000Z",
  dateEnd: "2025-01-01T23:59:59.000Z",
  successfulSessions: 1200,
  failedSessions: 3,
  reportId: "2025-01-01_example.com",
  contactInfo: "smtp-tls-reporting@google.com",
  policies: [
    {
      policyType: "sts",
      policyString: ["version: STSv1", "mode: enforce"],
      policyDomain: "example.com",
      mxHost: ["mx1.example.com"],
      successfulSessions: 1200,
      failedSessions: 3,
      failureDetails: [
        { resultType: "certificate-expired", sendingMtaIp: "209.85.220.41", receivingMxHostname: "mx1.example.com", receivingMxHelo: null, receivingIp: "192.0.2.10", failedSessionCount: 3, additionalInformation: null, failureReasonCode: "X509_V_ERR_CERT_HAS_EXPIRED" },
      ],
    },
  ],
  source: "upload",
  fileName: "tls.json",
  processedAt: "2025-01-02T00:00:00.000Z",
};

function serve(options: { empty?: boolean } = {}) {
  const asked: string[] = [];
  withFetch((url) => {
    const path = new URL(url, "http://localhost").pathname;
    asked.push(path);
    if (path === "/api/dmarc-reports") return json(options.empty ? [] : aggregate);
    if (path === "/api/failure-reports") return json(options.empty ? [] : [failure]);
    if (path === "/api/failure-reports/ruf-1") return json(failure);
    if (path === "/api/tls-reports") return json(options.empty ? [] : [tls]);
    if (path === "/api/tls-reports/tls-1") return json(tls);
    return json({ error: { code: "not_found", message: "No such endpoint." } }, 404);
  });
  return asked;
}

const tab = (name: string) => screen.getByRole("tab", { name });
const selected = () => screen.getAllByRole("tab").filter((t) => t.getAttribute("aria-selected") === "true").map((t) => t.textContent);

describe("reports tabs: Aggregate, Failure, SMTP TLS", () => {
  test("Aggregate is shown first; Failure and SMTP TLS list their reports and open one", async () => {
    const user = userEvent.setup();
    serve();
    renderWithProviders(<ReportsPage />, "/app/reports");
    expect(screen.getAllByRole("tab").map((t) => t.textContent)).toEqual(["Aggregate", "Senders", "Failure", "SMTP TLS"]);
    expect(selected()).toEqual(["Aggregate"]);
    expect(await screen.findByRole("button", { name: "google.com" })).toBeTruthy();

    await user.click(tab("Failure"));
    expect(selected()).toEqual(["Failure"]);
    const failureList = await screen.findByRole("region", { name: "Failure reports" });
    const row = within(failureList).getAllByRole("row")[1]!;
    expect(row.textContent).toContain("Boss <boss@example.com>");
    expect(row.textContent).toContain("DMARC");
    await user.click(within(row).getByRole("button", { name: "Urgent wire transfer" }));
    expect(await screen.findByRole("heading", { name: "Urgent wire transfer" })).toBeTruthy();
    expect(screen.getByLabelText("Original headers").textContent).toContain("X-Mailer: spoofer 1.0");
    expect(screen.getByText("bounce@spoof.example")).toBeTruthy();
    // where it came in, by its name in the interface (stored as "smtp")
    expect(screen.getByText(/· Report address/)).toBeTruthy();
    expect(screen.queryByRole("region", { name: "Upload reports" })).toBeNull();
    await user.click(screen.getByRole("button", { name: /Back to failure reports/ }));
    expect(await screen.findByRole("region", { name: "Failure reports" })).toBeTruthy();

    await user.click(tab("SMTP TLS"));
    expect(selected()).toEqual(["SMTP TLS"]);
    const tlsList = await screen.findByRole("region", { name: "TLS reports" });
    const tlsRow = within(tlsList).getAllByRole("row")[1]!;
    expect(tlsRow.textContent).toContain("example.com");
    expect(tlsRow.textContent).toContain("1,200");
    await user.click(within(tlsRow).getByRole("button", { name: "Google Inc." }));
    const policy = await screen.findByRole("region", { name: "Policy sts for example.com" });
    expect(policy.textContent).toContain("certificate-expired");
    expect(policy.textContent).toContain("The certificate has expired.");
    expect(policy.textContent).toContain("mx1.example.com");

    await user.click(tab("Aggregate"));
    expect(await screen.findByRole("button", { name: "google.com" })).toBeTruthy();
  });

  test("the failure list is paged by 25", async () => {
    const user = userEvent.setup();
    const many = Array.from({ length: 30 }, (_, i) => ({ ...failure, id: `ruf-${i}`, originalSubject: `Message ${i}` }));
    withFetch((url) => json(new URL(url, "http://localhost").pathname === "/api/failure-reports" ? many : []));
    renderWithProviders(<ReportsPage />, "/app/reports?tab=failure");
    expect(await screen.findByText("Showing 1–25 of 30")).toBeTruthy();
    await user.click(screen.getByRole("button", { name: /Next/ }));
    expect(screen.getByText("Showing 26–30 of 30")).toBeTruthy();
    expect(screen.getByRole("button", { name: "Message 29" })).toBeTruthy();
  });

  test("empty tabs say how to receive each kind of report", async () => {
    const user = userEvent.setup();
    serve({ empty: true });
    renderWithProviders(<ReportsPage />, "/app/reports");
    expect(await screen.findByText("No reports available")).toBeTruthy();
    await user.click(tab("Failure"));
    expect(await screen.findByText("No failure reports yet")).toBeTruthy();
    expect(screen.getByText(/ruf=mailto:/)).toBeTruthy();
    await user.click(tab("SMTP TLS"));
    expect(await screen.findByText("No TLS reports yet")).toBeTruthy();
    expect(screen.getByText(/v=TLSRPTv1; rua=mailto:/)).toBeTruthy();
  });

  test("?tab=tls opens on SMTP TLS; arrow keys move between tabs", async () => {
    const user = userEvent.setup();
    const asked = serve();
    renderWithProviders(<ReportsPage />, "/app/reports?tab=tls");
    expect(selected()).toEqual(["SMTP TLS"]);
    expect(await screen.findByRole("region", { name: "TLS reports" })).toBeTruthy();
    expect(asked).not.toContain("/api/failure-reports");
    tab("SMTP TLS").focus();
    await user.keyboard("{ArrowLeft}");
    expect(selected()).toEqual(["Failure"]);
    expect(document.activeElement).toBe(tab("Failure"));
    await user.keyboard("{Home}");
    expect(selected()).toEqual(["Aggregate"]);
  });
});
