/**
 * Every text a report may store has a bound, far above what real reporters send and far
 * below what would make a list or a detail screen heavy. A report with a longer field is
 * refused whole, naming the field, so nothing of it is stored.
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

type Field = readonly [name: string, value: string | null | undefined, max: number];

const B = FIELD_BOUNDS;

/** One field: the refusal when it is longer than `max` (no allocation when it is not: records are many). */
function field(kind: string, name: string, value: string | null | undefined, max: number): void {
  if (value && value.length > max) check(kind, [[name, value, max]]);
}

function check(kind: string, fields: readonly Field[]): void {
  for (const [name, value, max] of fields) {
    if (value && value.length > max) {
      throw new ReportRefusedError(
        `The ${kind}'s ${name} is ${value.length.toLocaleString("en-US")} characters long; the most allowed is ${max.toLocaleString("en-US")}. The report was refused and nothing of it was stored.`,
        "too_large",
      );
    }
  }
}

function checkAggregate(r: AggregateReport): void {
  const kind = "aggregate report";
  const p = r.policy;
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

function checkFailure(r: FailureReport): void {
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

function checkTls(r: TlsReport): void {
  const kind = "SMTP TLS report";
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

/** Throws ReportRefusedError naming the first field over its bound. */
export function assertFieldBounds(report: ParsedReport): void {
  if (report.kind === "aggregate") checkAggregate(report);
  else if (report.kind === "failure") checkFailure(report);
  else checkTls(report);
}
