/**
 * The one typed model every report format is normalised to. Parsers produce these; the
 * ingestion service stores them. Values are lower-cased where the RFCs define keywords.
 */

export type AuthVerdict = string; // "pass" | "fail" | "none" | "neutral" | "softfail" | "temperror" | "permerror" | "policy" | …

export interface DkimAuthResult {
  domain: string;
  selector: string | null;
  result: AuthVerdict;
  humanResult: string | null;
}

export interface SpfAuthResult {
  domain: string;
  /** "mfrom" | "helo" (RFC 7489), null when the reporter leaves it out */
  scope: string | null;
  result: AuthVerdict;
  humanResult: string | null;
}

export interface PolicyOverrideReason {
  type: string;
  comment: string | null;
}

export interface AggregateRecord {
  sourceIp: string;
  count: number;
  /** policy_evaluated: what the receiver did — "none" | "quarantine" | "reject" (DMARCbis may also say "pass") */
  disposition: string;
  /** policy_evaluated dkim / spf: the *aligned* results */
  dkimAligned: AuthVerdict | null;
  spfAligned: AuthVerdict | null;
  reasons: PolicyOverrideReason[];
  headerFrom: string | null;
  envelopeFrom: string | null;
  envelopeTo: string | null;
  dkimResults: DkimAuthResult[];
  spfResults: SpfAuthResult[];
}

export interface PublishedPolicy {
  domain: string;
  adkim: string | null;
  aspf: string | null;
  p: string | null;
  sp: string | null;
  /** DMARCbis: policy for non-existent subdomains */
  np: string | null;
  pct: number | null;
  fo: string | null;
  /** DMARCbis: "y" when the domain owner is testing the policy */
  testing: string | null;
  /** DMARCbis: "psl" | "treewalk" */
  discoveryMethod: string | null;
}

export interface AggregateReport {
  kind: "aggregate";
  /** "1.0" for DMARCbis reports that say so, null for RFC 7489 reports without <version> */
  version: string | null;
  /** true when the XML uses the DMARCbis namespace */
  dmarcbis: boolean;
  reporterOrg: string;
  reporterEmail: string | null;
  reporterContact: string | null;
  reportId: string;
  generator: string | null;
  reporterErrors: string[];
  dateBegin: Date;
  dateEnd: Date;
  policy: PublishedPolicy;
  records: AggregateRecord[];
}

export interface FailureReport {
  kind: "failure";
  /** ARF Feedback-Type, e.g. "auth-failure"; null for plain-text notices */
  feedbackType: string | null;
  /** ARF Auth-Failure, e.g. "dmarc", "dkim", "spf" */
  authFailure: string | null;
  reporterOrg: string;
  /** stable id for idempotency: the report message's Message-ID, or a digest of its content */
  reportId: string;
  /** the domain the report is about (Reported-Domain, else the original From domain) */
  domain: string;
  sourceIp: string | null;
  arrivalDate: Date | null;
  authenticationResults: string | null;
  /** RFC 7489 §7.3 Identity-Alignment: e.g. "dkim, spf" or "none" */
  identityAlignment: string | null;
  deliveryResult: string | null;
  dkimDomain: string | null;
  dkimSelector: string | null;
  spfDns: string | null;
  originalMailFrom: string | null;
  originalRcptTo: string | null;
  originalFrom: string | null;
  originalSubject: string | null;
  originalMessageId: string | null;
  /** the original message's header block, as the reporter sent it (bounded) */
  originalHeaders: string | null;
  /** true when no ARF part was found and fields were read from free text */
  plainText: boolean;
}

export interface TlsFailureDetail {
  resultType: string;
  sendingMtaIp: string | null;
  receivingMxHostname: string | null;
  receivingMxHelo: string | null;
  receivingIp: string | null;
  failedSessionCount: number;
  additionalInformation: string | null;
  failureReasonCode: string | null;
}

export interface TlsPolicyResult {
  policyType: string;
  policyString: string[];
  policyDomain: string;
  mxHost: string[];
  successfulSessions: number;
  failedSessions: number;
  failureDetails: TlsFailureDetail[];
}

export interface TlsReport {
  kind: "tls";
  reporterOrg: string;
  contactInfo: string | null;
  reportId: string;
  dateBegin: Date;
  dateEnd: Date;
  policies: TlsPolicyResult[];
}

export type ParsedReport = AggregateReport | FailureReport | TlsReport;

export type RefusalCode = "too_large" | "invalid" | "unknown_format" | "empty";

/** A file that cannot be read as a report. `code` "too_large" maps to HTTP 413. */
export class ReportRefusedError extends Error {
  constructor(
    message: string,
    readonly code: RefusalCode = "invalid",
  ) {
    super(message);
    this.name = "ReportRefusedError";
  }
}

/** Bounds on what a single file may cost us. */
export interface ReportLimits {
  /** bytes of one uploaded / received file */
  maxInputBytes: number;
  /** bytes after decompressing everything in a file */
  maxDecompressedBytes: number;
  /** decompressed / compressed, checked once the output passes `ratioCheckAfterBytes` */
  maxCompressionRatio: number;
  ratioCheckAfterBytes: number;
  /**
   * records in one aggregate report: its <record> rows, not the messages they count (each row is
   * a stored row and roll-up work, whatever its count)
   */
  maxRecords: number;
  /** reports in one file (zip entries, mail attachments, mbox messages) */
  maxReportsPerFile: number;
  /** characters of one XML token: an element's text, an attribute value, a comment */
  maxXmlTokenChars: number;
  /** nesting depth of XML elements (the DMARC schema needs 5) */
  maxXmlDepth: number;
  /** DKIM/SPF results and override reasons in one record; errors in one report's metadata */
  maxItemsPerList: number;
  /** characters of an SMTP TLS report's JSON */
  maxTlsJsonChars: number;
  /** nesting depth of an SMTP TLS report's JSON (RFC 8460 needs 4) */
  maxJsonDepth: number;
  /** policies in one SMTP TLS report, and failure details in one policy */
  maxTlsPolicies: number;
  /** the server's clock (ms) report dates are checked against (bounds.ts DATE_BOUNDS); the time of reading when unset */
  now?: number;
}

export const DEFAULT_LIMITS: ReportLimits = {
  maxInputBytes: 25 * 1024 * 1024,
  maxDecompressedBytes: 200 * 1024 * 1024,
  maxCompressionRatio: 200,
  ratioCheckAfterBytes: 4 * 1024 * 1024,
  maxRecords: 100_000,
  maxReportsPerFile: 100,
  maxXmlTokenChars: 64 * 1024,
  maxXmlDepth: 32,
  maxItemsPerList: 100,
  maxTlsJsonChars: 10 * 1024 * 1024,
  maxJsonDepth: 32,
  maxTlsPolicies: 1000,
};

/** Lets other requests (and /healthz) run between chunks of a long parse. */
export const yieldToEventLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

export const MB = (bytes: number) => `${Math.round((bytes / 1024 / 1024) * 10) / 10} MB`;

/** An aggregate report's (or its head's) period, which JSON turned into strings, as Dates again, in place. */
export function reviveReportPeriod<T extends { dateBegin: Date; dateEnd: Date }>(report: T): T {
  report.dateBegin = new Date(report.dateBegin);
  report.dateEnd = new Date(report.dateEnd);
  return report;
}
