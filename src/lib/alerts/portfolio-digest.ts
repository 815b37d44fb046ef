/**
 * The MSP's weekly portfolio digest: every client organization in one table — worst status,
 * pass rate and messages over 7 days, failing sources, open tasks, alerts and the last report —
 * the figures of GET /api/portfolio, clients that need attention first. Pure: the caller builds
 * the rows (src/features/digests) and the mail template renders the table (src/features/mail).
 */
import { attentionReasons, needsAttention } from "../portfolio-attention";
import type { DigestTable } from "./digest";

export interface PortfolioDigestClient {
  name: string;
  domains: number;
  worstStatus: "vulnerable" | "partial" | "pending" | "protected" | null;
  passRate7d: number | null;
  messages7d: number;
  failingSources7d: number;
  openTasks: number;
  alerts7d: number;
  /** ISO time of the last report received; null: never */
  lastReportAt: string | null;
}

export interface PortfolioDigestModel {
  organization: { name: string };
  /** the week up to the day it was built: [start, end) */
  period: { start: Date; end: Date };
  clients: PortfolioDigestClient[];
  /** the portfolio page (absolute) */
  link: string;
}

const STATUS_RANK = { vulnerable: 0, partial: 1, pending: 2, protected: 3 } as const;

/** Clients needing attention first (the portfolio screen's rule), by worst status, lowest pass rate, most alerts; then the others; by name within a tie. */
export function portfolioDigestOrder(clients: PortfolioDigestClient[]): PortfolioDigestClient[] {
  const rank = (c: PortfolioDigestClient) => (c.worstStatus ? STATUS_RANK[c.worstStatus] : 4);
  const needs = (c: PortfolioDigestClient) => (needsAttention(c) ? 0 : 1);
  return [...clients].sort(
    (a, b) =>
      needs(a) - needs(b) ||
      rank(a) - rank(b) ||
      (a.passRate7d ?? 101) - (b.passRate7d ?? 101) ||
      b.alerts7d - a.alerts7d ||
      b.failingSources7d - a.failingSources7d ||
      a.name.localeCompare(b.name),
  );
}

const number = (n: number) => n.toLocaleString("en-US");
const day = (d: Date) => d.toLocaleDateString("en-GB", { day: "numeric", month: "short", year: "numeric", timeZone: "UTC" });
const STATUS_LABEL = { vulnerable: "Vulnerable", partial: "Partial", pending: "Pending", protected: "Protected" } as const;

export function portfolioDigestPeriod(model: PortfolioDigestModel): string {
  return `${day(model.period.start)} – ${day(new Date(model.period.end.getTime() - 1))}`;
}

export function portfolioDigestTitle(model: PortfolioDigestModel): string {
  return `Weekly portfolio digest for ${model.organization.name}`;
}

export function portfolioDigestHeadline(model: PortfolioDigestModel): string[] {
  const n = model.clients.length;
  const attention = model.clients.filter(needsAttention).length;
  return [`${portfolioDigestPeriod(model)} · ${n} ${n === 1 ? "client" : "clients"}`, n ? `${attention} of ${n} ${n === 1 ? "client needs" : "clients need"} attention.` : "No client organizations yet."];
}

/** The one table: every client (no row limit), attention first. */
export function portfolioDigestTable(model: PortfolioDigestModel): DigestTable {
  return {
    heading: "Clients",
    columns: ["Client", "Worst status", "Pass rate 7d", "Messages 7d", "Failing sources 7d", "Open tasks", "Alerts 7d", "Last report", "Attention"],
    rows: portfolioDigestOrder(model.clients).map((c) => [
      c.name,
      c.worstStatus ? STATUS_LABEL[c.worstStatus] : "No domains",
      c.passRate7d === null ? "–" : `${c.passRate7d.toFixed(1)}%`,
      number(c.messages7d),
      number(c.failingSources7d),
      number(c.openTasks),
      number(c.alerts7d),
      c.lastReportAt ? day(new Date(c.lastReportAt)) : "Never",
      attentionReasons(c).join(", ") || "–",
    ]),
    empty: "No client organizations yet.",
    widths: [3, 2, 2, 2, 2, 1, 1, 2, 4],
  };
}
