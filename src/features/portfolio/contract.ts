/** Shapes of the MSP portfolio API: every client of the managing organization at a glance, and bulk onboarding from CSV. */
import { z } from "zod";
import { CLIENT_REPORT_MAX_CONTACTS } from "../../lib/client-report";

/** The worst of a client's domains' overall DNS statuses, worst first; null without domains. */
export const PORTFOLIO_STATUSES = ["vulnerable", "partial", "pending", "protected"] as const;
export type PortfolioStatus = (typeof PORTFOLIO_STATUSES)[number];

export interface PortfolioClient {
  id: string;
  name: string;
  /** the plan key in force for the client (its managing organization's plan) */
  plan: string;
  /** domains monitored */
  domains: number;
  worstStatus: PortfolioStatus | null;
  /** share of messages passing DMARC, in percent with one decimal (the dashboard's rule); null without mail */
  passRate7d: number | null;
  passRate30d: number | null;
  /** messages covered by the aggregate reports processed in the last 7 days */
  messages7d: number;
  /** source IPs whose mail failed DMARC on the last 7 UTC days (approved senders left out, as in the threat list) */
  failingSources7d: number;
  /** open tasks (the client's GET /api/tasks) */
  openTasks: number;
  /** alert events of the last 7 days (the client's notifications) */
  alerts7d: number;
  /** the last report received for any of its domains */
  lastReportAt: string | null;
  /** the DMARC policies of its checked domains (missing: no valid DMARC record; domains not checked yet are not counted) */
  policyMix: { reject: number; quarantine: number; none: number; missing: number };
}

export interface PortfolioResponse {
  clients: PortfolioClient[];
}

/** Bulk onboarding bounds: at most this many rows and bytes per import. */
export const IMPORT_MAX_ROWS = 1000;
export const IMPORT_MAX_BYTES = 200_000;

export const importSchema = z.object({
  csv: z
    .string({ error: "Paste or upload a CSV with one client name and domain per line" })
    .max(IMPORT_MAX_BYTES, `The CSV is larger than ${IMPORT_MAX_BYTES / 1000} kB. Split it into several imports.`),
  dryRun: z.boolean({ error: "dryRun must be true or false" }).default(true),
});
export type ImportInput = z.input<typeof importSchema>;

export type ImportRowStatus = "created" | "exists" | "error";

export interface ImportRow {
  /** line number in the CSV, from 1 */
  line: number;
  clientName: string;
  domain: string;
  /** created: the domain was (on a dry run: would be) added; exists: already monitored for that client; error: nothing changed */
  status: ImportRowStatus;
  /** whether the row created (would create) its client organization */
  clientCreated?: boolean;
  error?: string;
}

export interface ImportResponse {
  dryRun: boolean;
  rows: ImportRow[];
  summary: { created: number; exists: number; errors: number; clientsCreated: number };
}

/** Client reports: outside contacts of a client that receive its weekly report (its digest and PDF). */
export { CLIENT_REPORT_MAX_CONTACTS };
const CONTACT_EMAIL = z.email();

export const clientReportSchema = z
  .object({
    contacts: z
      .array(z.string({ error: "Each contact must be an email address" }), { error: "contacts must be a list of email addresses" })
      .max(100, `Enter at most ${CLIENT_REPORT_MAX_CONTACTS} contact addresses`)
      .transform((list) => [...new Set(list.map((c) => c.trim().toLowerCase()).filter(Boolean))])
      .superRefine((list, check) => {
        const bad = list.find((c) => c.length > 254 || !CONTACT_EMAIL.safeParse(c).success);
        if (bad !== undefined) check.addIssue({ code: "custom", message: `"${bad.length > 60 ? `${bad.slice(0, 60)}…` : bad}" is not a valid email address. Correct or remove it.` });
        else if (list.length > CLIENT_REPORT_MAX_CONTACTS) check.addIssue({ code: "custom", message: `Enter at most ${CLIENT_REPORT_MAX_CONTACTS} contact addresses (this list has ${list.length}). Remove ${list.length - CLIENT_REPORT_MAX_CONTACTS}.` });
      }),
    enabled: z.boolean({ error: "enabled must be true or false" }),
  })
  .superRefine((v, check) => {
    if (v.enabled && !v.contacts.length) check.addIssue({ code: "custom", path: ["contacts"], message: "Add at least one contact address to send the weekly report, or turn sending off." });
  });
export type ClientReportInput = z.input<typeof clientReportSchema>;

export interface ClientReportResponse {
  /** lower-cased, in the order entered */
  contacts: string[];
  enabled: boolean;
  /** when the weekly report last reached at least one contact (ISO); null: never */
  lastSentAt: string | null;
  /** addresses the relay refused the last time, with why; empty when the last send reached everyone */
  lastFailures: { to: string; error: string }[];
  lastFailedAt: string | null;
}
