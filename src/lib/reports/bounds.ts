/**
 * Every text a report may store has a bound, far above what real reporters send and far
 * below what would make a list or a detail screen heavy, and holds no control character;
 * every date lies in DATE_BOUNDS and every count in 0 … MAX_COUNT. A report with a field
 * outside them is refused whole, naming the field, so nothing of it is stored.
 */
import { ReportRefusedError, type AggregateReport, type FailureReport, type ParsedReport, type TlsReport } from "./model";

export const FIELD_BOUNDS = {
  /** keywords: disposition, results, policy values, feedback type */
  keyword: 64,
  /** an IP address as written */
  ip: 64,
  /** a domain name (253 in DNS, a little slack for a trailing dot or spaces) */
  domain: 255,
  /** a mail address or envelope identity */
  address: 512,
  /** names and ids: reporter organisation, report id, Message-ID, generator, selector */
  name: 1024,
  /** free text: human_result, reason comments, reporter errors, Authentication-Results, a subject */
  text: 16 * 1024,
  /** the failing message's header block kept with a failure report */
  headers: 32 * 1024,
} as const;

/** The largest message or session count, alone or summed over one report: exact as a JavaScript number, and far inside a 64-bit integer column. */
export const MAX_COUNT = Number.MAX_SAFE_INTEGER;

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * The dates a report may hold. The earliest is before any DMARC (2012) or SMTP TLS (2018)
 * report could have been sent yet after a clock reset to 1970; the latest leaves the reporter's
 * clock and time zone two days ahead of the server's.
 */
export const DATE_BOUNDS = {
  earliest: Date.UTC(2000, 0, 1),
  aheadMs: 2 * DAY_MS,
} as const;

/** Whether `date` is a real date inside DATE_BOUNDS, given the server's clock `now` (ms). */
export function dateInBounds(date: Date, now: number = Date.now()): boolean {
  const t = date.getTime();
  return t >= DATE_BOUNDS.earliest && t <= now + DATE_BOUNDS.aheadMs;
}

/** Whether `n` is a count a report may hold (a whole number from 0 to MAX_COUNT). */
export const countInBounds = (n: number): boolean => Number.isSafeInteger(n) && n >= 0;

/** `value` quoted for a refusal's message: control characters (DEL too) escaped, cut at 64 characters. */
export const quoted = (value: string): string => JSON.stringify(value.length > 64 ? `${value.slice(0, 64)}…` : value).replaceAll("\x7f", "\\u007f");

const REFUSED = "The report was refused and nothing of it was stored. Ask the reporter for a corrected report.";

/** A refusal of a whole report whose `what` is out of range. */
export const outOfRange = (what: string): ReportRefusedError => new ReportRefusedError(`${what}. ${REFUSED}`);

/** C0 controls (NUL included) and DEL: never in a stored string. */
const CONTROL = /[\x00-\x1f\x7f]/;
/** …except tab and line ends in free text and header blocks. */
const CONTROL_IN_TEXT = /[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]/;
const controlOf = (value: string, max: number): RegExpExecArray | null => (max >= FIELD_BOUNDS.text ? CONTROL_IN_TEXT : CONTROL).exec(value);

type Field = readonly [name: string, value: string | null | undefined, max: number];

const B = FIELD_BOUNDS;

/** One field: the refusal when it is longer than `max` or holds a control character (no allocation when not: records are many). */
function field(kind: string, name: string, value: string | null | undefined, max: number): void {
  if (value && (value.length > max || controlOf(value, max))) check(kind, [[name, value, max]]);
}

function check(kind: string, fields: readonly Field[]): void {
  for (const [name, value, max] of fields) {
    if (value && value.length > max) {
      throw new ReportRefusedError(
        `The ${kind}'s ${name} is ${value.length.toLocaleString("en-US")} characters long; the most allowed is ${max.toLocaleString("en-US")}. The report was refused and nothing of it was stored.`,
        "too_large",
      );
    }
    const control = value ? controlOf(value, max) : null;
    if (control) {
      const code = control[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, "0");
      throw outOfRange(`The ${kind}'s ${name} holds a control character (U+${code}), which no report field may hold`);
    }
  }
}

const shownDate = (date: Date) => (Number.isNaN(date.getTime()) ? "not a date" : date.toISOString());

/** Refuses a period outside DATE_BOUNDS or ending before it begins. */
function checkPeriod(kind: string, names: readonly [begin: string, end: string], begin: Date, end: Date, now: number): void {
  for (const [name, date] of [
    [names[0], begin],
    [names[1], end],
  ] as const) {
    if (!dateInBounds(date, now)) {
      throw outOfRange(`The ${kind}'s ${name} is ${shownDate(date)}; a report's dates lie between 2000-01-01 and two days after the server's date (${new Date(now).toISOString().slice(0, 10)})`);
    }
  }
  if (end.getTime() < begin.getTime()) throw outOfRange(`The ${kind}'s ${names[1]} (${shownDate(end)}) is before its ${names[0]} (${shownDate(begin)})`);
}

function checkAggregate(r: AggregateReport, now: number): void {
  const kind = "aggregate report";
  const p = r.policy;
  checkPeriod(kind, ["<date_range> <begin>", "<date_range> <end>"], r.dateBegin, r.dateEnd, now);
  check(kind, [
    ["<org_name>", r.reporterOrg, B.name],
    ["<email>", r.reporterEmail, B.address],
    ["<extra_contact_info>", r.reporterContact, B.name],
    ["<report_id>", r.reportId, B.name],
    ["<generator>", r.generator, B.name],
    ["<version>", r.version, B.keyword],
    ["<policy_published> <domain>", p.domain, B.domain],
    ["<adkim>", p.adkim, B.keyword],
    ["<aspf>", p.aspf, B.keyword],
    ["<p>", p.p, B.keyword],
    ["<sp>", p.sp, B.keyword],
    ["<np>", p.np, B.keyword],
    ["<fo>", p.fo, B.keyword],
    ["<testing>", p.testing, B.keyword],
    ["<discovery_method>", p.discoveryMethod, B.keyword],
  ]);
  for (const error of r.reporterErrors) check(kind, [["<error>", error, B.text]]);
  for (const rec of r.records) {
    if (!countInBounds(rec.count)) throw outOfRange(`The ${kind}'s <count> ${rec.count} is not a whole number from 0 to ${MAX_COUNT.toLocaleString("en-US")}`);
    field(kind, "<source_ip>", rec.sourceIp, B.ip);
    field(kind, "<disposition>", rec.disposition, B.keyword);
    field(kind, "<policy_evaluated> <dkim>", rec.dkimAligned, B.keyword);
    field(kind, "<policy_evaluated> <spf>", rec.spfAligned, B.keyword);
    field(kind, "<header_from>", rec.headerFrom, B.domain);
    field(kind, "<envelope_from>", rec.envelopeFrom, B.address);
    field(kind, "<envelope_to>", rec.envelopeTo, B.address);
    for (const reason of rec.reasons) {
      field(kind, "<reason> <type>", reason.type, B.keyword);
      field(kind, "<reason> <comment>", reason.comment, B.text);
    }
    for (const d of rec.dkimResults) {
      field(kind, "<auth_results> <dkim> <domain>", d.domain, B.domain);
      field(kind, "<selector>", d.selector, B.name);
      field(kind, "<dkim> <result>", d.result, B.keyword);
      field(kind, "<dkim> <human_result>", d.humanResult, B.text);
    }
    for (const x of rec.spfResults) {
      field(kind, "<auth_results> <spf> <domain>", x.domain, B.domain);
      field(kind, "<scope>", x.scope, B.keyword);
      field(kind, "<spf> <result>", x.result, B.keyword);
      field(kind, "<spf> <human_result>", x.humanResult, B.text);
    }
  }
}

function checkFailure(r: FailureReport, now: number): void {
  if (r.arrivalDate && !dateInBounds(r.arrivalDate, now)) throw outOfRange(`The failure report's Arrival-Date is ${shownDate(r.arrivalDate)}; a report's dates lie between 2000-01-01 and two days after the server's date`);
  check("failure report", [
    ["reporter", r.reporterOrg, B.name],
    ["Message-ID", r.reportId, B.name],
    ["Reported-Domain", r.domain, B.domain],
    ["Feedback-Type", r.feedbackType, B.keyword],
    ["Auth-Failure", r.authFailure, B.keyword],
    ["Source-IP", r.sourceIp, B.ip],
    ["Authentication-Results", r.authenticationResults, B.text],
    ["Identity-Alignment", r.identityAlignment, B.keyword],
    ["Delivery-Result", r.deliveryResult, B.keyword],
    ["DKIM-Domain", r.dkimDomain, B.domain],
    ["DKIM-Selector", r.dkimSelector, B.name],
    ["SPF-DNS", r.spfDns, B.text],
    ["Original-Mail-From", r.originalMailFrom, B.address],
    ["Original-Rcpt-To", r.originalRcptTo, B.address],
    ["original From", r.originalFrom, B.address],
    ["original Subject", r.originalSubject, B.text],
    ["original Message-ID", r.originalMessageId, B.name],
    ["original headers", r.originalHeaders, B.headers],
  ]);
}

function checkTls(r: TlsReport, now: number): void {
  const kind = "SMTP TLS report";
  checkPeriod(kind, ['"start-datetime"', '"end-datetime"'], r.dateBegin, r.dateEnd, now);
  check(kind, [
    ['"organization-name"', r.reporterOrg, B.name],
    ['"contact-info"', r.contactInfo, B.name],
    ['"report-id"', r.reportId, B.name],
  ]);
  for (const p of r.policies) {
    check(kind, [
      ['"policy-domain"', p.policyDomain, B.domain],
      ['"policy-type"', p.policyType, B.keyword],
    ]);
    for (const line of p.policyString) check(kind, [['"policy-string"', line, B.name]]);
    for (const mx of p.mxHost) check(kind, [['"mx-host"', mx, B.domain]]);
    for (const d of p.failureDetails) {
      check(kind, [
        ['"result-type"', d.resultType, B.keyword],
        ['"sending-mta-ip"', d.sendingMtaIp, B.ip],
        ['"receiving-mx-hostname"', d.receivingMxHostname, B.domain],
        ['"receiving-mx-helo"', d.receivingMxHelo, B.domain],
        ['"receiving-ip"', d.receivingIp, B.ip],
        ['"additional-information"', d.additionalInformation, B.text],
        ['"failure-reason-code"', d.failureReasonCode, B.name],
      ]);
    }
  }
}

/** Throws ReportRefusedError naming the first field outside its bounds; `now` is the server's clock (ms). */
export function assertFieldBounds(report: ParsedReport, now: number = Date.now()): void {
  if (report.kind === "aggregate") checkAggregate(report, now);
  else if (report.kind === "failure") checkFailure(report, now);
  else checkTls(report, now);
}
