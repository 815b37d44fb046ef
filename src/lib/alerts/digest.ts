/**
 * The weekly digest: one organisation's week in figures — its domains and their status
 * changes, messages and pass rate against the week before, the sources failing most, the
 * tasks still open. The model is built by the caller from the store; this module turns it
 * into the titled tables that both the mail body and the PDF show, so the two always agree.
 */
import type { OverallStatus } from "../dns/overall";
import type { Task } from "../tasks";
import { passRate } from "./report-thresholds";

export interface DigestDomain {
  name: string;
  status: OverallStatus;
  /** this week */
  messages: number;
  passed: number;
  /** the week before */
  previousMessages: number;
  previousPassed: number;
}

/** One client organisation of an MSP's digest: its totals for the week and the week before. */
export interface DigestClient {
  name: string;
  domains: number;
  messages: number;
  passed: number;
  previousMessages: number;
  previousPassed: number;
  openTasks: number;
}

export interface DigestModel {
  organization: { name: string };
  /** an MSP's digest covering its client organisations: one row per client (their domains, sources and tasks are in the other tables) */
  clients?: DigestClient[];
  /** the week covered: [start, end) */
  period: { start: Date; end: Date };
  domains: DigestDomain[];
  statusChanges: { domain: string; at: Date; before: OverallStatus; after: OverallStatus }[];
  topFailingSources: { sourceIp: string; sourceName?: string | null; domain: string; failedMessages: number }[];
  openTasks: Pick<Task, "title" | "priority" | "domain">[];
  /** the page the digest links to (absolute) */
  link: string;
}

/** How many rows a digest table shows at most; the rest is counted in a last line. */
export const DIGEST_MAX_ROWS = 15;

export interface DigestTable {
  heading: string;
  columns: string[];
  rows: string[][];
  /** shown instead of the table when it has no rows */
  empty: string;
  /** a line under the table ("and 12 more") */
  note?: string;
  /** relative column widths for a layout that has them (the PDF) */
  widths: number[];
}

export interface DigestTotals {
  messages: number;
  passRate: number | null;
  previousMessages: number;
  previousPassRate: number | null;
}

export function digestTotals(model: DigestModel): DigestTotals {
  const sum = (pick: (d: DigestDomain) => number) => model.domains.reduce((total, d) => total + pick(d), 0);
  const messages = sum((d) => d.messages);
  const previousMessages = sum((d) => d.previousMessages);
  return { messages, passRate: passRate({ messages, passed: sum((d) => d.passed) }), previousMessages, previousPassRate: passRate({ messages: previousMessages, passed: sum((d) => d.previousPassed) }) };
}

const number = (n: number) => n.toLocaleString("en-US");
const rate = (r: number | null) => (r === null ? "–" : `${r.toFixed(1)}%`);
const day = (d: Date) => d.toLocaleDateString("en-GB", { day: "numeric", month: "short", year: "numeric", timeZone: "UTC" });

/** "+2.5 pts", "−4.0 pts", "±0 pts" or "" when either side has no messages. */
export function pointsChange(now: number | null, before: number | null): string {
  if (now === null || before === null) return "";
  const delta = Math.round((now - before) * 10) / 10;
  if (delta === 0) return "±0 pts";
  return `${delta > 0 ? "+" : "−"}${Math.abs(delta).toFixed(1)} pts`;
}

/** "+12%", "−3%", "new" (nothing the week before). */
export function volumeChange(now: number, before: number): string {
  if (before === 0) return now === 0 ? "" : "new";
  const delta = Math.round(((now - before) / before) * 100);
  return delta === 0 ? "±0%" : `${delta > 0 ? "+" : "−"}${Math.abs(delta)}%`;
}

/** "4 May – 10 May 2026" (the last day included). */
export function digestPeriod(model: DigestModel): string {
  const last = new Date(model.period.end.getTime() - 1);
  return `${day(model.period.start)} – ${day(last)}`;
}

export function digestTitle(model: DigestModel): string {
  return `Weekly DMARC digest for ${model.organization.name}`;
}

/** The summary lines under the title: messages and pass rate against the week before. */
export function digestHeadline(model: DigestModel): string[] {
  const t = digestTotals(model);
  const lines = [`${digestPeriod(model)} · ${model.domains.length} ${model.domains.length === 1 ? "domain" : "domains"}`];
  const volume = volumeChange(t.messages, t.previousMessages);
  lines.push(`Messages: ${number(t.messages)}${volume ? ` (${volume} on the week before: ${number(t.previousMessages)})` : ""}`);
  const points = pointsChange(t.passRate, t.previousPassRate);
  lines.push(`DMARC pass rate: ${rate(t.passRate)}${points ? ` (${points} on the week before: ${rate(t.previousPassRate)})` : ""}`);
  return lines;
}

function limited(rows: string[][]): { rows: string[][]; note?: string } {
  if (rows.length <= DIGEST_MAX_ROWS) return { rows };
  return { rows: rows.slice(0, DIGEST_MAX_ROWS), note: `and ${rows.length - DIGEST_MAX_ROWS} more` };
}

/** The digest's tables, in order. */
export function digestTables(model: DigestModel): DigestTable[] {
  const domains = [...model.domains].sort((a, b) => b.messages - a.messages || a.name.localeCompare(b.name));
  const changes = [...model.statusChanges].sort((a, b) => a.at.getTime() - b.at.getTime());
  const sources = [...model.topFailingSources].sort((a, b) => b.failedMessages - a.failedMessages);
  const order = { high: 0, medium: 1, low: 2 } as const;
  const tasks = [...model.openTasks].sort((a, b) => order[a.priority] - order[b.priority]);
  const clients: DigestTable[] = model.clients
    ? [
        {
          heading: "Client organizations",
          columns: ["Organization", "Domains", "Messages", "Change", "Pass rate", "Open tasks"],
          ...limited(
            [...model.clients]
              .sort((a, b) => b.messages - a.messages || a.name.localeCompare(b.name))
              .map((c) => {
                const now = passRate({ messages: c.messages, passed: c.passed });
                const before = passRate({ messages: c.previousMessages, passed: c.previousPassed });
                return [c.name, number(c.domains), number(c.messages), volumeChange(c.messages, c.previousMessages), `${rate(now)}${pointsChange(now, before) ? ` (${pointsChange(now, before)})` : ""}`, number(c.openTasks)];
              }),
          ),
          empty: "No client organizations yet.",
          widths: [30, 11, 14, 10, 22, 13],
        },
      ]
    : [];
  return [
    ...clients,
    {
      heading: "Domains",
      columns: ["Domain", "Status", "Messages", "Change", "Pass rate", "Change"],
      ...limited(
        domains.map((d) => {
          const now = passRate({ messages: d.messages, passed: d.passed });
          const before = passRate({ messages: d.previousMessages, passed: d.previousPassed });
          return [d.name, d.status, number(d.messages), volumeChange(d.messages, d.previousMessages), rate(now), pointsChange(now, before)];
        }),
      ),
      empty: "No domains yet.",
      widths: [33, 14, 14, 10, 14, 15],
    },
    { heading: "Status changes", columns: ["Date", "Domain", "Change"], ...limited(changes.map((c) => [day(c.at), c.domain, `${c.before} → ${c.after}`])), empty: "No domain changed status this week.", widths: [20, 45, 35] },
    {
      heading: "Top failing sources",
      columns: ["Source", "Domain", "Failed messages"],
      ...limited(sources.map((s) => [s.sourceName ? `${s.sourceIp} (${s.sourceName})` : s.sourceIp, s.domain, number(s.failedMessages)])),
      empty: "No source failed DMARC this week.",
      widths: [45, 35, 20],
    },
    { heading: "Open tasks", columns: ["Priority", "Task", "Domain"], ...limited(tasks.map((t) => [t.priority, t.title, t.domain])), empty: "No open tasks.", widths: [12, 60, 28] },
  ];
}
