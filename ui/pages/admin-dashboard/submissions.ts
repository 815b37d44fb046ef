/**
 * The console's pure list logic (SPEC §2/§5 Admin filter): counters, the All/Unread/Sales/
 * Support filters and the case-insensitive substring search over name, email, company, subject.
 */
import type { ContactSubmission } from "../../../src/features/admin/contract";

export type SubmissionFilter = "all" | "unread" | "sales" | "support";

export const FILTERS: { key: SubmissionFilter; label: string }[] = [
  { key: "all", label: "All" },
  { key: "unread", label: "Unread" },
  { key: "sales", label: "Sales" },
  { key: "support", label: "Support" },
];

export interface SubmissionCounts {
  total: number;
  unread: number;
  sales: number;
  support: number;
}

export function countSubmissions(list: ContactSubmission[]): SubmissionCounts {
  return {
    total: list.length,
    unread: list.filter((s) => !s.isRead).length,
    sales: list.filter((s) => s.requestType === "sales").length,
    support: list.filter((s) => s.requestType === "support").length,
  };
}

export function matchesSearch(s: ContactSubmission, search: string): boolean {
  const needle = search.trim().toLowerCase();
  if (!needle) return true;
  return [s.name, s.email, s.company, s.subject].some((field) => (field ?? "").toLowerCase().includes(needle));
}

export function matchesFilter(s: ContactSubmission, filter: SubmissionFilter): boolean {
  switch (filter) {
    case "all":
      return true;
    case "unread":
      return !s.isRead;
    case "sales":
    case "support":
      return s.requestType === filter;
  }
}

export function filterSubmissions(list: ContactSubmission[], search: string, filter: SubmissionFilter): ContactSubmission[] {
  return list.filter((s) => matchesFilter(s, filter) && matchesSearch(s, search));
}

/** Request-type badge styles: sales, support, demo and everything else. */
export function requestTypeBadgeClass(requestType: string): string {
  switch (requestType) {
    case "sales":
      return "badge-success";
    case "support":
      return "badge-info";
    case "demo":
      return "badge-secondary";
    default:
      return "badge-ghost";
  }
}

/** "Mar 1, 2025, 10:00 AM" in the viewer's time zone. */
export function formatSubmittedAt(iso: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  return d.toLocaleString("en-US", { month: "short", day: "numeric", year: "numeric", hour: "numeric", minute: "2-digit" });
}
