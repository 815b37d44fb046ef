import { expect, test } from "bun:test";
import { screen, within } from "@testing-library/react";
import { cleanUpAfterEach, json, renderWithProviders, withFetch } from "../../../tests/support/ui";
import type { DmarcReportDetail } from "./api";
import { ReportDetail } from "./ReportDetail";

cleanUpAfterEach();

type Record = DmarcReportDetail["records"][number];
const record = (over: Partial<Record>): Record => ({
  sourceIp: "192.0.2.1",
  country: null,
  city: null,
  ptr: null,
  baseDomain: null,
  service: null,
  serviceType: null,
  count: 1,
  disposition: "none",
  dkimAligned: "pass",
  spfAligned: "pass",
  dmarcPass: true,
  headerFrom: "example.com",
  envelopeFrom: null,
  envelopeTo: null,
  reasons: [],
  dkimResults: [],
  spfResults: [],
  ...over,
});

const report: DmarcReportDetail = {
  id: "agg-1",
  orgName: "google.com",
  totalMessages: 12,
  passRate: 100,
  processedAt: "2025-01-02T00:00:00Z",
  domain: "example.com",
  reportId: "g-1",
  recordCount: 3,
  dateBegin: "2025-01-01T00:00:00Z",
  dateEnd: "2025-01-01T23:59:59Z",
  source: "upload",
  reporterEmail: null,
  reporterContact: null,
  generator: null,
  version: null,
  reporterErrors: [],
  policy: { domain: "example.com", p: "reject", sp: null, np: null, adkim: null, aspf: null, pct: null, fo: null, testing: null, discoveryMethod: null },
  records: [
    record({ sourceIp: "209.85.220.41", country: "US", city: "Mountain View", count: 10 }),
    record({ sourceIp: "81.2.69.142", country: "GB", count: 1 }),
    record({ sourceIp: "198.51.100.7", count: 1 }),
  ],
  recordsTruncated: false,
};

test("a record's source shows City, Country when the city is known, else the country", async () => {
  withFetch((url) => (new URL(url, "http://localhost").pathname === "/api/dmarc-reports/agg-1" ? json(report) : json({ error: { code: "not_found", message: "nope" } }, 404)));
  renderWithProviders(<ReportDetail id="agg-1" onBack={() => {}} />);
  const row = (ip: string) => (screen.getByText(ip).closest("tr") as HTMLElement);
  await screen.findByText("209.85.220.41");
  expect(within(row("209.85.220.41")).getByText("Mountain View, United States")).toBeTruthy();
  expect(within(row("81.2.69.142")).getByText("United Kingdom")).toBeTruthy();
  expect(within(row("198.51.100.7")).getByText("Unknown country")).toBeTruthy();
});
