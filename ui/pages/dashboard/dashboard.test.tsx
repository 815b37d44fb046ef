import { beforeEach, describe, expect, test } from "bun:test";
import { screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { Route, Routes } from "react-router";
import { cleanUpAfterEach, renderWithProviders, withFetch } from "../../../tests/support/ui";
import { NOTIFICATIONS_STORAGE_KEY, NotificationsMenu, type AppNotification } from "../../components/NotificationsMenu";
import { QuickActions } from "../../components/QuickActions";
import type { DashboardStats, DmarcReportSummary, IpThreat, Task } from "./api";
import { DashboardView } from "./DashboardView";

const now = new Date("2025-06-01T12:00:00Z");
const hoursAgo = (h: number) => new Date(now.getTime() - h * 3_600_000).toISOString();

const stats: DashboardStats = {
  totalDomains: 5,
  dmarcProtected: 2,
  protectionRate: 40,
  domainGrowth: "+1",
  activeIssues: 4,
  issueChange: "-2",
  reportsProcessed: 1247,
  reportGrowth: "+12%",
  messagesLast30Days: 10_000,
  passRateLast30Days: 96.5,
};
const task = (i: number, priority: Task["priority"] = "high"): Task => ({
  id: `t${i}`,
  title: `Task number ${i}`,
  description: `Do thing ${i}`,
  priority,
  createdAt: hoursAgo(i * 30),
  domain: "acme.example",
  category: "dmarc",
  link: "/app/domains",
});
const report = (i: number, passRate: number): DmarcReportSummary => ({
  id: `r${i}`,
  orgName: `reporter${i}.example`,
  totalMessages: 1000 + i,
  passRate,
  processedAt: hoursAgo(i * 2),
  domain: "acme.example",
  reportId: `id${i}`,
  recordCount: 3,
  dateBegin: hoursAgo(48),
  dateEnd: hoursAgo(24),
  source: "upload",
});
const threat = (ip: string, attemptCount: number, threatLevel: IpThreat["threatLevel"], country: string): IpThreat => ({
  ipAddress: ip,
  country,
  countryCode: null,
  city: "",
  attemptCount,
  deliveredCount: 0,
  threatLevel,
  lastSeenAt: hoursAgo(1),
  ptr: null,
  service: null,
  domains: ["acme.example"],
});
const domain = (name: string, dmarc: string | null, overall: string) => ({
  id: name,
  name,
  dmarcPolicy: dmarc,
  spfStatus: "valid",
  dkimStatus: "weak key",
  overallStatus: overall,
  lastReportAt: hoursAgo(30),
  lastCheckedAt: hoursAgo(1),
  createdAt: hoursAgo(100),
});

type Answers = Record<string, unknown | ((init: RequestInit) => Response)>;
const full: Answers = {
  "/api/auth/me": { user: { id: "u", name: "Ann", email: "ann@acme.example" }, currentOrg: { id: "o", name: "Acme", role: "owner" }, orgs: [] },
  "/api/dashboard/stats": stats,
  "/api/domains": [domain("acme.example", "reject", "protected"), domain("acme.net", "none", "vulnerable")],
  "/api/tasks": [task(1), task(2, "medium"), task(3, "low"), task(4, "low")],
  "/api/dmarc-reports": [report(1, 99.2), report(2, 85), report(3, 42.5), report(4, 100)],
  "/api/ip-threats": [threat("203.0.113.9", 120, "high", "Germany"), threat("198.51.100.7", 5, "medium", "Brazil")],
};

function serve(answers: Answers) {
  return withFetch((url, init) => {
    const path = new URL(url, "http://localhost").pathname;
    const answer = answers[path];
    if (typeof answer === "function") return (answer as (init: RequestInit) => Response)(init);
    if (answer === undefined) return new Response("not here", { status: 404 });
    return Response.json(answer);
  });
}

let fetchStub: ReturnType<typeof serve> | null = null;
beforeEach(() => localStorage.removeItem(NOTIFICATIONS_STORAGE_KEY));
cleanUpAfterEach();

describe("dashboard (SPEC §2 Authenticated dashboard)", () => {
  test("shows stat cards, the domain table, at most 3 tasks and 3 reports with pass-rate colors, threats of the last 24h and the DNS lookup", async () => {
    fetchStub = serve(full);
    renderWithProviders(<DashboardView now={now} />, "/app/dashboard");
    const statsRegion = await screen.findByRole("region", { name: "Statistics" });
    expect(within(statsRegion).getByText("40%")).toBeTruthy();
    expect(within(statsRegion).getByText("2 of 5 domains enforced")).toBeTruthy();
    expect(within(statsRegion).getByText("1.2K")).toBeTruthy(); // thousands, one decimal
    expect(within(statsRegion).getByText("-2")).toBeTruthy();
    expect(within(statsRegion).getByText("+12%")).toBeTruthy();

    const table = await screen.findByRole("table");
    expect(within(table).getByText("acme.example")).toBeTruthy();
    expect(within(table).getByText("Vulnerable").getAttribute("data-tone")).toBe("bad");
    expect(within(table).getAllByText("Weak key")[0]!.getAttribute("data-tone")).toBe("warning");

    const tasks = await screen.findByRole("list", { name: "Tasks" });
    expect(within(tasks).getAllByRole("listitem")).toHaveLength(3);
    expect(screen.getByRole("link", { name: "View all (4)" }).getAttribute("href")).toBe("/app/tasks");

    const reports = await screen.findByRole("list", { name: "Reports" });
    const rates = within(reports).getAllByText(/%$/);
    expect(rates.map((r) => r.textContent)).toEqual(["99.2%", "85%", "42.5%"]);
    expect(rates.map((r) => r.className.match(/text-(?:pass-)?(green|orange|red)\b/)?.[1])).toEqual(["green", "orange", "red"]);

    const threats = await screen.findByRole("list", { name: "Threats" });
    expect(within(threats).getAllByRole("listitem").map((li) => li.getAttribute("data-ip"))).toEqual(["203.0.113.9", "198.51.100.7"]);
    expect(screen.getByText("Last 24h")).toBeTruthy();
    expect(screen.getByPlaceholderText("Enter domain (e.g., example.com)")).toBeTruthy();
    expect(screen.getByText("Email authentication overview for Acme")).toBeTruthy();
  });

  test("stats that fail to load show No Stats Available; a failed list shows the error card and Try Again refetches", async () => {
    let taskCalls = 0;
    fetchStub = serve({
      ...full,
      "/api/dashboard/stats": () => new Response("boom", { status: 500 }),
      "/api/tasks": () => (++taskCalls === 1 ? new Response("down", { status: 503 }) : Response.json([task(9)])),
    });
    renderWithProviders(<DashboardView now={now} />, "/app/dashboard");
    expect(await screen.findByText("No Stats Available")).toBeTruthy();
    expect(screen.getByText("Dashboard statistics could not be loaded. Please try again.")).toBeTruthy();
    const section = screen.getByRole("region", { name: "Tasks & Issues" });
    expect(await within(section).findByText("Something went wrong")).toBeTruthy();
    await userEvent.setup().click(within(section).getByRole("button", { name: /Try Again/ }));
    expect(await within(section).findByText("Task number 9")).toBeTruthy();
  });

  test("empty states of an empty organization: No domains, No active tasks or issues, No reports available, No Active Threats — never 'records look right' or 'currently secure'", async () => {
    fetchStub = serve({ ...full, "/api/dashboard/stats": { ...stats, totalDomains: 0, dmarcProtected: 0, protectionRate: 0 }, "/api/domains": [], "/api/tasks": [], "/api/dmarc-reports": [], "/api/ip-threats": [] });
    renderWithProviders(<DashboardView now={now} />, "/app/dashboard");
    expect(await screen.findByText("No domains")).toBeTruthy();
    expect(await screen.findByText("No active tasks or issues")).toBeTruthy();
    expect(await screen.findByText("No reports available")).toBeTruthy();
    expect(await screen.findByText("No Active Threats")).toBeTruthy();
    expect(await screen.findByText(/No domain is monitored yet/)).toBeTruthy();
    expect(screen.queryByText(/currently secure/)).toBeNull();
    expect(screen.queryByText(/records look right/)).toBeNull();
  });

  test("domains but no report yet: threats and tasks do not claim the domains are secure", async () => {
    const unreported = { ...domain("acme.example", "none", "partial"), lastReportAt: null };
    fetchStub = serve({ ...full, "/api/domains": [unreported], "/api/tasks": [], "/api/dmarc-reports": [], "/api/ip-threats": [] });
    renderWithProviders(<DashboardView now={now} />, "/app/dashboard");
    expect(await screen.findByText(/No report has arrived yet/)).toBeTruthy();
    expect(await screen.findByText(/Tasks about who sends mail as your domains appear once reports arrive/)).toBeTruthy();
    expect(screen.queryByText(/currently secure/)).toBeNull();
    expect(screen.queryByText(/records look right/)).toBeNull();
  });

  test("with reports, an empty threat list keeps SPEC's wording", async () => {
    fetchStub = serve({ ...full, "/api/ip-threats": [] });
    renderWithProviders(<DashboardView now={now} />, "/app/dashboard");
    expect(await screen.findByText("Your domains are currently secure from malicious activity.")).toBeTruthy();
  });

  test("Reports Processed keeps thousands with one decimal and shows the exact count beneath: one report is not just 0.0K", async () => {
    fetchStub = serve({ ...full, "/api/dashboard/stats": { ...stats, reportsProcessed: 1 } });
    renderWithProviders(<DashboardView now={now} />, "/app/dashboard");
    const card = await screen.findByRole("group", { name: "Reports Processed" });
    expect(within(card).getByText("0.0K")).toBeTruthy();
    expect(within(card).getByText("1 report")).toBeTruthy();
  });
});

describe("getting-started checklist", () => {
  const step = (key: string, title: string, done: boolean) => ({ key, title, detail: `${title} detail`, done, link: `/app/${key}` });
  const view = (doneKeys: string[], dismissed = false) => {
    const steps = [
      step("domain", "Add a domain", doneKeys.includes("domain")),
      step("dmarc", "Publish DMARC with your report address", doneKeys.includes("dmarc")),
      step("report", "Receive the first report", doneKeys.includes("report")),
      step("sources", "Fix the sources that fail DMARC", doneKeys.includes("sources")),
      step("enforce", "Move to quarantine, then reject", doneKeys.includes("enforce")),
    ];
    return { steps, complete: steps.every((s) => s.done), dismissed, mode: "choice", paths: [] };
  };

  test("shows the five steps with the server's state, the next one linked; no way to put it away before all are done", async () => {
    fetchStub = serve({ ...full, "/api/onboarding": view(["domain"]) });
    renderWithProviders(<DashboardView now={now} />, "/app/dashboard");
    const list = await screen.findByRole("list", { name: "Getting-started steps" });
    const items = within(list).getAllByRole("listitem");
    expect(items.map((li) => [li.getAttribute("data-step"), li.getAttribute("data-done")])).toEqual([
      ["domain", "true"],
      ["dmarc", "false"],
      ["report", "false"],
      ["sources", "false"],
      ["enforce", "false"],
    ]);
    expect(screen.getByText(/1 of 5 steps done/)).toBeTruthy();
    expect(within(items[1]!).getByRole("link", { name: /Where reports go/ }).getAttribute("href")).toBe("/app/dmarc");
    expect(screen.queryByRole("button", { name: "Put away" })).toBeNull();
  });

  test("once every step is done it can be put away, which the server stores", async () => {
    const calls = serve({ ...full, "/api/onboarding": view(["domain", "dmarc", "report", "sources", "enforce"]), "/api/onboarding/dismiss": view(["domain", "dmarc", "report", "sources", "enforce"], true) });
    fetchStub = calls;
    renderWithProviders(<DashboardView now={now} />, "/app/dashboard");
    await userEvent.setup().click(await screen.findByRole("button", { name: "Put away" }));
    await waitFor(() => expect(screen.queryByRole("list", { name: "Getting-started steps" })).toBeNull());
    expect(calls.calls.some((c) => c.url === "/api/onboarding/dismiss" && c.init.method === "POST")).toBe(true);
  });

  test("put away: not shown", async () => {
    fetchStub = serve({ ...full, "/api/onboarding": view(["domain", "dmarc", "report", "sources", "enforce"], true) });
    renderWithProviders(<DashboardView now={now} />, "/app/dashboard");
    await screen.findByRole("table");
    expect(screen.queryByRole("list", { name: "Getting-started steps" })).toBeNull();
  });
});

describe("notifications menu (SPEC §3/§4, local only)", () => {
  const list: AppNotification[] = [
    { id: "a", type: "warning", title: "Publish DMARC", message: "m1", timestamp: new Date(now.getTime() - 5 * 60_000), read: false },
    { id: "b", type: "error", title: "High threat", message: "m2", timestamp: new Date(now.getTime() - 3 * 3_600_000), read: false },
  ];

  test("unread count; click marks one read; Mark all read; delete down to No notifications; minutes then hours", async () => {
    const user = userEvent.setup();
    renderWithProviders(<NotificationsMenu notifications={list} now={now} />);
    await user.click(screen.getByRole("button", { name: "Notifications: 2 unread" }));
    expect(screen.getByText("5m ago")).toBeTruthy();
    expect(screen.getByText("3h ago")).toBeTruthy();
    await user.click(screen.getByText("Publish DMARC"));
    const row = (id: string) => document.querySelector(`[data-notification="${id}"]`)!;
    expect(row("a").getAttribute("data-read")).toBe("true");
    expect(row("b").getAttribute("data-read")).toBe("false");
    await user.click(screen.getByText("Mark all read"));
    expect(row("b").getAttribute("data-read")).toBe("true");
    expect(screen.queryByText("Mark all read")).toBeNull();
    await user.click(screen.getByRole("menuitem", { name: "Delete notification: Publish DMARC" }));
    await user.click(screen.getByRole("menuitem", { name: "Delete notification: High threat" }));
    expect(screen.getByText("No notifications")).toBeTruthy();
    // read/deleted state is remembered in this browser only
    expect(JSON.parse(localStorage.getItem(NOTIFICATIONS_STORAGE_KEY)!).deleted.sort()).toEqual(["a", "b"]);
  });

  test("with nothing to show: No notifications", async () => {
    renderWithProviders(<NotificationsMenu notifications={[]} now={now} />);
    await userEvent.setup().click(screen.getByRole("button", { name: "Notifications" }));
    expect(screen.getByText("No notifications")).toBeTruthy();
  });
});

describe("quick actions (SPEC §2)", () => {
  function withRoutes() {
    return (
      <Routes>
        <Route path="/app/dashboard" element={<QuickActions />} />
        <Route path="/app/dns" element={<p>DNS screen</p>} />
        <Route path="/app/tasks" element={<p>Tasks screen</p>} />
        <Route path="/app/reports" element={<p>Reports screen</p>} />
      </Routes>
    );
  }

  test("Add Domain opens a dialog that only closes, making no call", async () => {
    const user = userEvent.setup();
    fetchStub = serve({});
    renderWithProviders(withRoutes(), "/app/dashboard");
    await user.click(screen.getByRole("button", { name: /Quick Actions/ }));
    for (const name of ["Add Domain", "DNS Lookup", "View Reports", "Check Issues"]) expect(screen.getByRole("menuitem", { name })).toBeTruthy();
    await user.click(screen.getByRole("menuitem", { name: "Add Domain" }));
    const dialog = await screen.findByRole("dialog", { name: "Add Domain" });
    await user.click(within(dialog).getAllByRole("button", { name: "Close" })[0]!);
    await waitFor(() => expect(screen.queryByRole("dialog")).toBeNull());
    expect(fetchStub.calls).toHaveLength(0);
  });

  test.each([
    ["DNS Lookup", "DNS screen"],
    ["Check Issues", "Tasks screen"],
    ["View Reports", "Reports screen"],
  ])("%s goes to its /app page", async (item, screenText) => {
    const user = userEvent.setup();
    renderWithProviders(withRoutes(), "/app/dashboard");
    await user.click(screen.getByRole("button", { name: /Quick Actions/ }));
    await user.click(screen.getByRole("menuitem", { name: item }));
    expect(await screen.findByText(screenText)).toBeTruthy();
  });
});
