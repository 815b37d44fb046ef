/**
 * Where a stored report came in (the `source` column of every report table, `source` in the
 * reports API) and how the interface names it. The values are stable: stored rows, metrics
 * labels and API answers use them.
 */
import type { OAuthMailProvider } from "../../db/schema/mailboxes";

export const REPORT_SOURCES = {
  upload: "Uploaded",
  cli: "Command line",
  smtp: "Report address",
  imap: "IMAP mailbox",
  microsoft: "Microsoft 365 mailbox",
  gmail: "Google Workspace mailbox",
  demo: "Demo data",
} as const;

export type ReportSource = keyof typeof REPORT_SOURCES;

/** The interface's name for a stored source; an unknown value is shown as it is. */
export function reportSourceLabel(source: string): string {
  return Object.hasOwn(REPORT_SOURCES, source) ? REPORT_SOURCES[source as ReportSource] : source;
}

/** The source of reports fetched through an OAuth2 mailbox of this provider (Microsoft Graph, Gmail API). */
export function oauthReportSource(provider: OAuthMailProvider): ReportSource {
  return provider === "microsoft" ? "microsoft" : "gmail";
}
