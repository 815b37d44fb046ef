/**
 * Extra findings beside DMARC/SPF/DKIM: MX (does the domain receive mail), MTA-STS
 * (_mta-sts), TLS-RPT (_smtp._tls) and BIMI (default._bimi) — presence and basic validity.
 */
import { finding, type Finding, isTemporaryFailure, type LookupResult, type MxAnswer, parseTagList, type TxtLookup } from "./types";

/** SPEC §4 badge words: configured (good), missing, invalid. */
/** "unchecked": the DNS server did not answer the lookup, so nothing is known (src/features/dns/analyze.ts) */
export type ExtraStatus = "configured" | "missing" | "invalid" | "unchecked";

export interface ExtraResult {
  status: ExtraStatus;
  recordValue: string | null;
  findings: Finding[];
  details?: Record<string, unknown>;
}

export function evaluateMx(domain: string, lookup: LookupResult<MxAnswer>): ExtraResult {
  if (isTemporaryFailure(lookup.status)) return { status: "invalid", recordValue: null, findings: [finding("warning", "mx.lookup_failed", `The MX lookup for ${domain} failed (${lookup.status}).`, "Try again later.")] };
  const hosts = [...lookup.records].sort((a, b) => a.priority - b.priority);
  if (!hosts.length) {
    return { status: "missing", recordValue: null, findings: [finding("info", "mx.missing", `${domain} has no MX record, so it cannot receive mail (including DMARC reports sent to addresses at it).`, `If ${domain} should receive mail, add the MX records your email provider gives you; if it never receives mail, publish a "null MX" (priority 0, host ".").`)] };
  }
  const nullMx = hosts.length === 1 && (hosts[0]!.exchange === "" || hosts[0]!.exchange === ".");
  const value = hosts.map((h) => `${h.priority} ${h.exchange || "."}`).join(", ");
  if (nullMx) return { status: "configured", recordValue: value, findings: [finding("info", "mx.null", `${domain} publishes a null MX: it accepts no mail.`)], details: { hosts, nullMx } };
  return { status: "configured", recordValue: value, findings: [], details: { hosts, nullMx } };
}

function single(lookup: TxtLookup, prefix: RegExp): { record?: string; count: number } {
  const records = lookup.records.map((r) => r.text).filter((t) => prefix.test(t));
  return { record: records[0], count: records.length };
}

function absent(code: string, message: string, fix: string): ExtraResult {
  return { status: "missing", recordValue: null, findings: [finding("info", code, message, fix)] };
}

export function evaluateMtaSts(domain: string, lookup: TxtLookup): ExtraResult {
  const { record, count } = single(lookup, /^\s*v\s*=\s*STSv1/i);
  if (!record) return absent("mta_sts.missing", "MTA-STS is not set up: mail sent to you may travel without enforced encryption.", `Publish a TXT record at _mta-sts.${domain} ("v=STSv1; id=20240101") and a policy file at https://mta-sts.${domain}/.well-known/mta-sts.txt.`);
  const findings: Finding[] = [];
  if (count > 1) findings.push(finding("error", "mta_sts.multiple", `There are ${count} MTA-STS records at _mta-sts.${domain}; senders ignore MTA-STS when there is more than one.`, "Keep one."));
  const tags = parseTagList(record).byName;
  const id = tags.get("id");
  if (!id || !/^[A-Za-z0-9]{1,32}$/.test(id)) findings.push(finding("error", "mta_sts.bad_id", 'The MTA-STS record needs an "id=" of 1 to 32 letters and digits.', 'Add an id such as "id=20240101", and change it whenever the policy file changes.'));
  return { status: findings.some((f) => f.level === "error") ? "invalid" : "configured", recordValue: record, findings, details: { id } };
}

export function evaluateTlsRpt(domain: string, lookup: TxtLookup): ExtraResult {
  const { record, count } = single(lookup, /^\s*v\s*=\s*TLSRPTv1/i);
  if (!record) return absent("tls_rpt.missing", "TLS reporting (TLS-RPT) is not set up: you will not hear about failed encrypted deliveries.", `Publish a TXT record at _smtp._tls.${domain}: "v=TLSRPTv1; rua=mailto:tls-reports@${domain}".`);
  const findings: Finding[] = [];
  if (count > 1) findings.push(finding("error", "tls_rpt.multiple", `There are ${count} TLS-RPT records at _smtp._tls.${domain}.`, "Keep one."));
  const rua = parseTagList(record).byName.get("rua");
  const uris = rua?.split(",").map((u) => u.trim()).filter(Boolean) ?? [];
  if (!uris.length) findings.push(finding("error", "tls_rpt.no_rua", "The TLS-RPT record has no rua= address for reports.", `Add rua=mailto:tls-reports@${domain}.`));
  for (const u of uris) if (!/^(mailto:[^@\s]+@[^@\s]+|https:\/\/\S+)$/i.test(u)) findings.push(finding("error", "tls_rpt.bad_rua", `"${u}" is not a mailto: or https: address.`, `Use rua=mailto:tls-reports@${domain}.`));
  return { status: findings.some((f) => f.level === "error") ? "invalid" : "configured", recordValue: record, findings, details: { rua: uris } };
}

export function evaluateBimi(domain: string, lookup: TxtLookup, dmarcEnforced: boolean): ExtraResult {
  const { record } = single(lookup, /^\s*v\s*=\s*BIMI1/i);
  if (!record) return absent("bimi.missing", "BIMI is not set up: your logo will not show next to your mail in supporting inboxes.", `Once DMARC is at quarantine or reject, publish a TXT record at default._bimi.${domain}: "v=BIMI1; l=https://${domain}/logo.svg".`);
  const findings: Finding[] = [];
  const tags = parseTagList(record).byName;
  const logo = tags.get("l") ?? "";
  const authority = tags.get("a") ?? "";
  if (logo && !/^https:\/\/\S+\.svg$/i.test(logo)) findings.push(finding("error", "bimi.bad_logo", `The BIMI logo "${logo}" must be an https:// address of an SVG file.`, "Host the logo as SVG Tiny PS over HTTPS and put its address in l=."));
  if (!logo && !authority) findings.push(finding("warning", "bimi.declined", "The BIMI record declines to show a logo (l= and a= are empty).", "Add l= with your logo's https address if you want it shown."));
  if (authority && !/^https:\/\/\S+$/i.test(authority)) findings.push(finding("error", "bimi.bad_authority", `The BIMI certificate address "${authority}" must be an https:// address.`, "Put the https address of your VMC/CMC certificate in a=, or leave a= empty."));
  if (logo && !authority) findings.push(finding("info", "bimi.no_certificate", "The BIMI record names no VMC or CMC certificate (a= is empty): Gmail and Apple Mail show logos only with one; some other inboxes show the logo without it.", "To show the logo in Gmail and Apple Mail, get a Verified Mark Certificate (VMC) or Common Mark Certificate (CMC) and put its https address in a=."));
  if (!dmarcEnforced) findings.push(finding("warning", "bimi.needs_dmarc", "BIMI logos are only shown when DMARC is at quarantine or reject.", "Move your DMARC policy to quarantine or reject."));
  return { status: findings.some((f) => f.level === "error") ? "invalid" : "configured", recordValue: record, findings, details: { logo, authority } };
}

/** What the DNSKEY queries found: the zone apex that has keys (nearest first), and whether the resolver validated. */
export interface DnssecInput {
  /** the name whose DNSKEY answered, or null when none of the names had keys */
  zone: string | null;
  /** the resolver set the AD bit on that answer */
  authenticated: boolean;
  /** a lookup failed, so "unsigned" cannot be concluded */
  failed: boolean;
}

/** DNSSEC is shown, never required: every finding is info. "configured" = the zone is signed. */
export function evaluateDnssec(domain: string, input: DnssecInput): ExtraResult {
  if (input.zone) {
    const validated = input.authenticated
      ? finding("info", "dnssec.validated", `The zone ${input.zone} is signed with DNSSEC, and the resolver validated the answers.`)
      : finding("info", "dnssec.signed", `The zone ${input.zone} is signed with DNSSEC (DNSKEY published); the resolver used for this check does not validate, so the signatures were not verified here.`, "Nothing to do. To see the validation, check from a validating resolver (for example --dns-server 1.1.1.1).");
    return { status: "configured", recordValue: `DNSKEY at ${input.zone}`, findings: [validated], details: { zone: input.zone, authenticated: input.authenticated } };
  }
  if (input.failed) return { status: "missing", recordValue: null, findings: [finding("info", "dnssec.lookup_failed", `Whether ${domain} is signed with DNSSEC could not be checked (the DNSKEY lookup failed).`)], details: { zone: null, authenticated: false } };
  return {
    status: "missing",
    recordValue: null,
    findings: [finding("info", "dnssec.unsigned", `${domain} is not signed with DNSSEC. It is optional: it protects the answers (including your SPF, DKIM and DMARC records) from being forged on the way.`, "If your DNS provider offers DNSSEC, turn it on and publish the DS record at your registrar.")],
    details: { zone: null, authenticated: false },
  };
}
