/** Shapes of the reports API, shared with the UI. */
import { z } from "zod";
import type { TlsPolicyResult } from "../../lib/reports/model";
import type { SenderKind, SenderMark, SenderSummary } from "../../lib/senders";
import type { TrendSeries } from "../../lib/trends";
import type { IngestResult } from "./ingest";

export type { IngestResult } from "./ingest";

/**
 * Report lists are paged: ?limit= 1 to 1000 (the largest page), ?offset= where the page
 * starts. A page that is followed by more carries a `Link: <…>; rel="next"` header.
 * GET /api/dmarc-reports gives 1000 when no limit is given.
 */
export const MAX_REPORT_LIST = 1000;
/** the furthest a list can be paged to */
export const MAX_LIST_OFFSET = 10_000_000;
const LIMIT_MESSAGE = `limit must be a whole number from 1 to ${MAX_REPORT_LIST}`;
const OFFSET_MESSAGE = `offset must be a whole number from 0 to ${MAX_LIST_OFFSET}`;
const listQuerySchema = (defaultLimit: number) =>
  z.object({
    limit: z.coerce.number({ error: LIMIT_MESSAGE }).int(LIMIT_MESSAGE).min(1, LIMIT_MESSAGE).max(MAX_REPORT_LIST, LIMIT_MESSAGE).default(defaultLimit),
    offset: z.coerce.number({ error: OFFSET_MESSAGE }).int(OFFSET_MESSAGE).min(0, OFFSET_MESSAGE).max(MAX_LIST_OFFSET, OFFSET_MESSAGE).default(0),
  });
export type PageQuery = z.infer<ReturnType<typeof listQuerySchema>> & Partial<ReportFilters> & { cursor?: string };

const DATE_MESSAGE = "from and to must be dates written YYYY-MM-DD";
const isDate = (v: string) => /^\d{4}-\d{2}-\d{2}$/.test(v) && !Number.isNaN(Date.parse(`${v}T00:00:00Z`)) && new Date(`${v}T00:00:00Z`).toISOString().startsWith(v);
const text = (max: number, name: string) =>
  z
    .string()
    .max(max, `${name} must be at most ${max} characters`)
    .optional()
    .transform((v) => v?.trim() || undefined);
/**
 * Filters of the report lists: ?domain= (the report's domain), ?reporter= (the reporting
 * organisation, any case), ?from=&to= (YYYY-MM-DD UTC days the report's period begins in, both
 * included), ?failures=1 (only reports with failing mail), ?q= (part of the reporter or report id);
 * ?cursor= (the previous page's X-Next-Cursor) pages on from where it ended, in place of ?offset=.
 */
const reportFiltersSchema = z
  .object({
    domain: text(300, "domain").transform((v) => v?.toLowerCase().replace(/\.$/, "")),
    reporter: text(200, "reporter"),
    from: z.string({ error: DATE_MESSAGE }).refine(isDate, DATE_MESSAGE).optional(),
    to: z.string({ error: DATE_MESSAGE }).refine(isDate, DATE_MESSAGE).optional(),
    failures: z
      .enum(["1", "0", "true", "false"], { error: "failures must be 1 or 0" })
      .optional()
      .transform((v) => v === "1" || v === "true"),
    q: text(200, "q"),
    cursor: z.string().max(300, "cursor is not one this server gave").optional(),
  })
  .refine((f) => !f.from || !f.to || f.from <= f.to, { message: "from must be on or before to.", path: ["to"] });
export type ReportFilters = Omit<z.infer<typeof reportFiltersSchema>, "cursor">;
const withFilters = (defaultLimit: number) => z.intersection(listQuerySchema(defaultLimit), reportFiltersSchema);
export const listReportsQuerySchema = withFilters(MAX_REPORT_LIST);

/** GET /api/failure-reports and /api/tls-reports: ?limit= 1 to 1000, 200 when not given. */
export const DEFAULT_FAILURE_TLS_LIST = 200;
export const listFailureTlsQuerySchema = withFilters(DEFAULT_FAILURE_TLS_LIST);

/** SPEC §3 DMARC report, plus the fields the reports screen shows. */
export interface DmarcReportSummary {
  id: string;
  /** the reporting organisation (e.g. "google.com") */
  orgName: string;
  totalMessages: number;
  /** share of messages with DMARC pass, 0–100, one decimal */
  passRate: number;
  processedAt: string;
  domain: string;
  reportId: string;
  recordCount: number;
  dateBegin: string;
  dateEnd: string;
  source: string;
}

export interface AuthResultView {
  domain: string;
  selector?: string | null;
  scope?: string | null;
  result: string;
  humanResult: string | null;
}

export interface DmarcRecordView {
  sourceIp: string;
  country: string | null;
  city: string | null;
  ptr: string | null;
  baseDomain: string | null;
  service: string | null;
  serviceType: string | null;
  count: number;
  disposition: string;
  dkimAligned: string | null;
  spfAligned: string | null;
  dmarcPass: boolean;
  headerFrom: string | null;
  envelopeFrom: string | null;
  envelopeTo: string | null;
  reasons: { type: string; comment: string | null }[];
  dkimResults: AuthResultView[];
  spfResults: AuthResultView[];
}

export interface DmarcReportDetail extends DmarcReportSummary {
  reporterEmail: string | null;
  reporterContact: string | null;
  generator: string | null;
  version: string | null;
  reporterErrors: string[];
  policy: {
    domain: string;
    p: string | null;
    sp: string | null;
    np: string | null;
    adkim: string | null;
    aspf: string | null;
    pct: number | null;
    fo: string | null;
    testing: string | null;
    discoveryMethod: string | null;
  };
  records: DmarcRecordView[];
  /** true when only the largest MAX_DETAIL_RECORDS records are included */
  recordsTruncated: boolean;
}

/** GET /api/failure-reports: one failure (RUF) report. */
export interface FailureReportSummary {
  id: string;
  domain: string;
  reporterOrg: string;
  sourceIp: string | null;
  country: string | null;
  /** when the failing message arrived (ISO), null when the reporter did not say */
  arrivalDate: string | null;
  /** ARF Auth-Failure, e.g. "dmarc", "dkim", "spf" */
  authFailure: string | null;
  originalFrom: string | null;
  originalSubject: string | null;
}

/** GET /api/failure-reports/:id: every stored field. */
export interface FailureReportDetail extends FailureReportSummary {
  reportId: string;
  feedbackType: string | null;
  ptr: string | null;
  authenticationResults: string | null;
  identityAlignment: string | null;
  deliveryResult: string | null;
  dkimDomain: string | null;
  dkimSelector: string | null;
  spfDns: string | null;
  originalMailFrom: string | null;
  originalRcptTo: string | null;
  originalMessageId: string | null;
  /** the failing message's header block as the reporter sent it */
  originalHeaders: string | null;
  /** true when read from a plain-text notice without an ARF part */
  plainText: boolean;
  source: string;
  fileName: string | null;
  processedAt: string;
}

/** GET /api/tls-reports: one SMTP TLS (RFC 8460) report for one policy domain. */
export interface TlsReportSummary {
  id: string;
  policyDomain: string;
  reporterOrg: string;
  dateBegin: string;
  dateEnd: string;
  successfulSessions: number;
  failedSessions: number;
}

export type { TlsFailureDetail, TlsPolicyResult } from "../../lib/reports/model";

/** GET /api/tls-reports/:id: the report with its policies and their failure details. */
export interface TlsReportDetail extends TlsReportSummary {
  reportId: string;
  contactInfo: string | null;
  policies: TlsPolicyResult[];
  source: string;
  fileName: string | null;
  processedAt: string;
}

export interface UploadResponse {
  results: IngestResult[];
}

export const MAX_DETAIL_RECORDS = 2000;
export const MAX_UPLOAD_FILES = 50;
/** characters of an uploaded file's name kept with its reports */
export const MAX_FILE_NAME = 255;

/** Share of messages with DMARC pass, 0–100, one decimal. */
export function passRateOf(passCount: number, messageCount: number): number {
  if (messageCount <= 0) return 0;
  return Math.round((passCount / messageCount) * 1000) / 10;
}

/** GET /api/senders: ?days= 1 to 365 (30 when not given), ?domain= one of the organisation's domains. */
export const DEFAULT_SENDER_DAYS = 30;
const DAYS_MESSAGE = "days must be a whole number from 1 to 365";
export const sendersQuerySchema = z.object({
  days: z.coerce.number({ error: DAYS_MESSAGE }).int(DAYS_MESSAGE).min(1, DAYS_MESSAGE).max(365, DAYS_MESSAGE).default(DEFAULT_SENDER_DAYS),
  domain: z
    .string()
    .trim()
    .max(253, "domain is too long")
    .transform((v) => v.toLowerCase().replace(/\.$/, ""))
    .optional()
    .transform((v) => v || undefined),
});
export type { SenderSummary, SenderVerdict, SenderKind, SenderMark } from "../../lib/senders";

/** GET /api/senders/:key: ?days= 1 to 365 (30 when not given), UTC days ending today. */
export const senderDetailQuerySchema = z.object({
  days: z.coerce.number({ error: DAYS_MESSAGE }).int(DAYS_MESSAGE).min(1, DAYS_MESSAGE).max(365, DAYS_MESSAGE).default(DEFAULT_SENDER_DAYS),
});

/** PUT /api/senders/:key/mark: { verdict: "approved" | "not_ours" | null } (null clears the mark). */
const VERDICT_MESSAGE = 'verdict must be "approved", "not_ours" or null';
export const markSenderSchema = z.object({
  verdict: z.enum(["approved", "not_ours"], { error: VERDICT_MESSAGE }).nullable(),
});

/** One IP of a sender over the period. */
export interface SenderIpView {
  ip: string;
  /** ISO 3166-1 alpha-2, null when unknown */
  country: string | null;
  ptr: string | null;
  messages: number;
  /** shares of its messages, 0–100, one decimal */
  passRate: number;
  spfAlignedRate: number;
  dkimAlignedRate: number;
  lastSeen: string;
}

/** A recent record of the sender, with the report it came in. */
export interface SenderSampleRecord extends DmarcRecordView {
  reportId: string;
  reporter: string;
  policyDomain: string;
  dateBegin: string;
  dateEnd: string;
}

/** GET /api/senders/:key: one sender of the organisation over the last `days` UTC days. */
export interface SenderDetail {
  key: string;
  kind: SenderKind;
  sender: string;
  days: number;
  /** the period, "YYYY-MM-DD" UTC days, both included */
  from: string;
  to: string;
  /** the Senders view's row for it (verdict, rates, domains); null when it sent nothing in the period */
  summary: SenderSummary | null;
  mark: SenderMark | null;
  markedAt: string | null;
  /** its IPs, most mail first, at most MAX_SENDER_IPS (`ipCount` says how many there were) */
  ips: SenderIpView[];
  ipCount: number;
  /** its mail per UTC day of the period, from the daily source roll-ups of its IPs */
  trend: TrendSeries;
  /** its most recent records, newest first */
  samples: SenderSampleRecord[];
}

export const MAX_SENDER_IPS = 200;
export const SENDER_SAMPLES = 5;
