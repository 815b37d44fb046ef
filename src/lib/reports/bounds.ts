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
    check(kind, [
      ["<source_ip>", rec.sourceIp, B.ip],
      ["<disposition>", rec.disposition, B.keyword],
      ["<policy_evaluated> <dkim>", rec.dkimAligned, B.keyword],
      ["<policy_evaluated> <spf>", rec.spfAligned, B.keyword],
      ["<header_from>", rec.headerFrom, B.domain],
      ["<envelope_from>", rec.envelopeFrom, B.address],
      ["<envelope_to>", rec.envelopeTo, B.address],
    ]);
    for (const reason of rec.reasons) check(kind, [["<reason> <type>", reason.type, B.keyword], ["<reason> <comment>", reason.comment, B.text]]);
    for (const d of rec.dkimResults) check(kind, [["<auth_results> <dkim> <domain>", d.domain, B.domain], ["<selector>", d.selector, B.name], ["<dkim> <result>", d.result, B.keyword], ["<dkim> <human_result>", d.humanResult, B.text]]);
    for (const s of rec.spfResults) check(kind, [["<auth_results> <spf> <domain>", s.domain, B.domain], ["<scope>", s.scope, B.keyword], ["<spf> <result>", s.result, B.keyword], ["<spf> <human_result>", s.humanResult, B.text]]);
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
