import { describe, expect, test } from "bun:test";
import { screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import type { SenderDetail } from "../../../src/features/reports/contract";
import { fillTrendDays } from "../../../src/lib/trends";
import { cleanUpAfterEach, json, renderApp, withFetch } from "../../../tests/support/ui";

cleanUpAfterEach();

const org = (role: "owner" | "admin" | "member" | "viewer") => ({ id: "o1", name: "Acme Dental", slug: "acme-dental", parentId: null, role });
const me = (role: "owner" | "admin" | "member" | "viewer") => ({ user: { id: "u1", name: "Dana Scully", email: "dana@example.com" }, organizations: [org(role)], currentOrg: org(role) });

const detail = (over: Partial<SenderDetail> = {}): SenderDetail => ({
  key: "domain:partner-mail.example",
  kind: "domain",
  sender: "partner-mail.example",
  days: 30,
  from: "2026-01-01",
  to: "2026-01-30",
  summary: {
    key: "domain:partner-mail.example",
    mark: null,
    sender: "partner-mail.example",
    kind: "domain",
    serviceType: null,
    messages: 25,
    passRate: 0,
    spfAlignedRate: 0,
    dkimAlignedRate: 0,
    ips: 1,
    domains: ["shop.example"],
    countries: ["GB"],
    lastSeen: new Date().toISOString(),
    verdict: "failing",
  },
  mark: null,
  markedAt: null,
  ips: [{ ip: "81.2.69.160", country: "GB", ptr: "mx.partner-mail.example", messages: 25, passRate: 0, spfAlignedRate: 0, dkimAlignedRate: 0, lastSeen: new Date().toISOString() }],
  ipCount: 1,
  trend: { from: "2026-01-01", to: "2026-01-30", days: fillTrendDays("2026-01-01", "2026-01-30", [{ date: "2026-01-29", messages: 25, failed: 25 }]) },
  samples: [
    {
      sourceIp: "81.2.69.160",
      country: "GB",
      city: null,
      ptr: "mx.partner-mail.example",
      baseDomain: "partner-mail.example",
      service: null,
      serviceType: null,
      count: 25,
      disposition: "none",
      dkimAligned: "fail",
      spfAligned: "fail",
      dmarcPass: false,
      headerFrom: "shop.example",
      envelopeFrom: "bounce.partner-mail.example",
      envelopeTo: null,
      reasons: [],
      dkimResults: [{ domain: "partner-mail.example", selector: "k1", result: "pass", humanResult: null }],
      spfResults: [{ domain: "partner-mail.example", scope: "mfrom", result: "pass", humanResult: null }],
      reportId: "r-1",
      reporter: "google.com",
      policyDomain: "shop.example",
      dateBegin: "2026-01-29T00:00:00.000Z",
      dateEnd: "2026-01-29T23:59:59.000Z",
    },
  ],
  ...over,
});

function serve(role: "owner" | "admin" | "member" | "viewer", first = detail()) {
  let current = first;
  return withFetch((url, init) => {
    if (url === "/api/auth/me") return json(me(role));
    if (url.startsWith("/api/senders/") && init.method === "PUT") {
      const { verdict } = JSON.parse(String(init.body));
      const summary = current.summary && { ...current.summary, mark: verdict, verdict: verdict === "approved" ? ("setup" as const) : verdict === "not_ours" ? ("spoofing" as const) : ("failing" as const) };
      current = { ...current, mark: verdict, summary };
      return json({ key: current.key, mark: verdict });
    }
    if (url.startsWith("/api/senders/")) return json(current);
    return json([], 200);
  });
}

describe("sender page", () => {
  test("shows the verdict and its fix, the IPs with country and PTR, the trend and recent records with their auth results", async () => {
    const { calls } = serve("owner");
    renderApp("/app/senders/domain%3Apartner-mail.example");
    expect(await screen.findByRole("heading", { name: "partner-mail.example" })).toBeTruthy();
    expect(calls.some((c) => c.url === "/api/senders/domain%3Apartner-mail.example?days=30")).toBe(true);
    const verdict = screen.getByRole("region", { name: "Verdict" });
    expect(within(verdict).getByText("Failing — not authorized to send as you; if you don't know it, this is spoofing")).toBeTruthy();
    const ips = screen.getByRole("region", { name: "IP addresses (1)" });
    const row = ips.querySelector('[data-ip="81.2.69.160"]')!;
    expect(within(row as HTMLElement).getByText("mx.partner-mail.example")).toBeTruthy();
    expect(row.querySelector('[data-country-label="GB"]')).toBeTruthy();
    const samples = screen.getByRole("region", { name: "Recent records" });
    expect(within(samples).getByText("partner-mail.example (k1): pass")).toBeTruthy();
    expect(within(samples).getByText("DMARC fail")).toBeTruthy();
    expect(screen.getByRole("link", { name: "Senders" }).getAttribute("href")).toBe("/app/reports?tab=senders");
  });

  test("an owner approves the sender: the mark is saved and the verdict becomes a set-up job", async () => {
    const { calls } = serve("owner");
    renderApp("/app/senders/domain%3Apartner-mail.example");
    await userEvent.click(await screen.findByRole("button", { name: /Approve — it's ours/ }));
    await waitFor(() => expect(screen.getByText("Yours, not set up yet — 100% of its mail fails DMARC: add it to SPF or have it sign with DKIM for your domain")).toBeTruthy());
    const put = calls.find((c) => c.init.method === "PUT")!;
    expect(put.url).toBe("/api/senders/domain%3Apartner-mail.example/mark");
    expect(JSON.parse(String(put.init.body))).toEqual({ verdict: "approved" });
    expect(screen.getByText("Approved")).toBeTruthy();
    expect(screen.getByRole("button", { name: /Remove mark/ })).toBeTruthy();
  });

  test("members and viewers see the mark but cannot change it", async () => {
    serve("member", detail({ mark: "not_ours" }));
    renderApp("/app/senders/domain%3Apartner-mail.example");
    expect(await screen.findByText("Not ours")).toBeTruthy();
    expect(await screen.findByText("Admins and owners of the organization can mark senders.")).toBeTruthy();
    expect(screen.queryByRole("button", { name: /Approve/ })).toBeNull();
  });

  test("a sender without mail in the period says so", async () => {
    serve("owner", detail({ summary: null, ips: [], ipCount: 0, samples: [] }));
    renderApp("/app/senders/domain%3Apartner-mail.example");
    expect(await screen.findByText("No mail from this sender in the last 30 days.")).toBeTruthy();
  });
});
