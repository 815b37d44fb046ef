/**
 * The portfolio table's search, filter and sort: pure, so the screen and its tests agree on
 * what "worst first" or "no reports yet" means.
 */
import type { PortfolioClient } from "../../../src/features/portfolio/contract";
import { needsAttention } from "../../../src/lib/portfolio-attention";

export type SortKey = "name" | "domains" | "worstStatus" | "passRate7d" | "passRate30d" | "messages7d" | "failingSources7d" | "openTasks" | "alerts7d" | "lastReportAt";
export type SortDirection = "asc" | "desc";
export interface PortfolioView {
  search: string;
  status: StatusFilter;
  sort: SortKey;
  direction: SortDirection;
}

export const STATUS_FILTERS = {
  all: "All statuses",
  vulnerable: "Vulnerable",
  partial: "Partial",
  pending: "Pending",
  protected: "Protected",
  "no-domains": "No domains",
  attention: "Needs attention",
} as const;
export type StatusFilter = keyof typeof STATUS_FILTERS;

export const SORT_LABELS: Record<SortKey, string> = {
  name: "Client",
  domains: "Domains",
  worstStatus: "Status",
  passRate7d: "Pass rate 7d",
  passRate30d: "Pass rate 30d",
  messages7d: "Messages 7d",
  failingSources7d: "Failing sources 7d",
  openTasks: "Open tasks",
  alerts7d: "Alerts 7d",
  lastReportAt: "Last report",
};

/** Which way a column sorts first when clicked: the worrying end first. */
export const FIRST_DIRECTION: Record<SortKey, SortDirection> = {
  name: "asc",
  domains: "desc",
  worstStatus: "asc",
  passRate7d: "asc",
  passRate30d: "asc",
  messages7d: "desc",
  failingSources7d: "desc",
  openTasks: "desc",
  alerts7d: "desc",
  lastReportAt: "asc",
};

export const DEFAULT_VIEW: PortfolioView = { search: "", status: "all", sort: "worstStatus", direction: "asc" };

const STATUS_RANK: Record<string, number> = { vulnerable: 0, partial: 1, pending: 2, protected: 3 };

/** A client that needs someone to look: a bad status, open tasks or alerts this week (the portfolio digest's rule too). */
export { needsAttention };

function matches(c: PortfolioClient, view: PortfolioView): boolean {
  const q = view.search.trim().toLowerCase();
  if (q && !c.name.toLowerCase().includes(q)) return false;
  switch (view.status) {
    case "all":
      return true;
    case "no-domains":
      return c.domains === 0;
    case "attention":
      return needsAttention(c);
    default:
      return c.worstStatus === view.status;
  }
}

/** The value a column sorts by; null (no domains, no mail, no report) always sorts last. */
function sortValue(c: PortfolioClient, key: SortKey): number | string | null {
  switch (key) {
    case "name":
      return c.name.toLowerCase();
    case "worstStatus":
      return c.worstStatus === null ? null : (STATUS_RANK[c.worstStatus] ?? 2);
    case "lastReportAt":
      return c.lastReportAt;
    default:
      return c[key];
  }
}

export function applyView(clients: PortfolioClient[], view: PortfolioView): PortfolioClient[] {
  const sign = view.direction === "asc" ? 1 : -1;
  return clients
    .filter((c) => matches(c, view))
    .sort((a, b) => {
      const x = sortValue(a, view.sort);
      const y = sortValue(b, view.sort);
      if (x === null || y === null) {
        if (x !== y) return x === null ? 1 : -1;
      } else if (x !== y) return (x < y ? -1 : 1) * sign;
      return a.name.localeCompare(b.name);
    });
}

/** The view after clicking a column header: the same column flips, another starts at its worrying end. */
export function sortBy(view: PortfolioView, key: SortKey): PortfolioView {
  if (view.sort === key) return { ...view, direction: view.direction === "asc" ? "desc" : "asc" };
  return { ...view, sort: key, direction: FIRST_DIRECTION[key] };
}
