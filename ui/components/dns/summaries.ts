/** One plain-language sentence per result, for owners who do not read DNS records. */
import type { DnsAnalysis } from "../../../src/features/dns/analyze";

/** What a check says when the DNS server did not answer its lookup: no verdict, no advice. */
export const NOT_ANSWERED_SUMMARY = "Could not check (DNS server did not answer). Nothing is known about this record yet: look up again in a minute.";

export function dmarcSummary(a: DnsAnalysis): string {
  const d = a.dmarc;
  const inherited = d.details.inherited ? ` (inherited from ${d.details.source?.replace(/^_dmarc\./, "")})` : "";
  switch (d.status) {
    case "unchecked":
      return NOT_ANSWERED_SUMMARY;
    case "reject":
      return `Mail that fails the checks is rejected${inherited}: your domain is protected against spoofing.`;
    case "quarantine":
      return `Mail that fails the checks goes to the spam folder${inherited}. Good; reject is stronger.`;
    case "none":
      return `Monitoring only${inherited}: you receive reports, but mail that fails the checks is still delivered.`;
    case "missing":
      return "No DMARC policy: receivers do nothing about mail that pretends to come from your domain.";
    default:
      return "The DMARC record has errors, so receivers may ignore it.";
  }
}

export function spfSummary(a: DnsAnalysis): string {
  const s = a.spf;
  const count = `It uses ${s.details.lookupCount} of the ${s.details.lookupLimit} DNS lookups allowed.`;
  switch (s.status) {
    case "unchecked":
      return NOT_ANSWERED_SUMMARY;
    case "valid":
      return `Your SPF record lists the servers allowed to send your mail. ${count}`;
    case "too many lookups":
      return `Your SPF record needs more DNS lookups than receivers allow, so SPF fails for your mail. ${count}`;
    case "missing":
      return "No SPF record: receivers cannot tell which servers may send mail for your domain.";
    default:
      return "The SPF record has errors, so receivers treat SPF as failed.";
  }
}

export function dkimSummary(a: DnsAnalysis): string {
  const keys = a.dkim.details.keys;
  const list = keys.map((k) => `${k.selector} (${k.status === "revoked" ? "revoked" : `${(k.keyType ?? "rsa").toUpperCase()}${k.bits ? ` ${k.bits}-bit` : ""}`})`).join(", ");
  switch (a.dkim.status) {
    case "unchecked":
      return NOT_ANSWERED_SUMMARY;
    case "valid":
      return `Your mail can be signed: DKIM key${keys.length > 1 ? "s" : ""} found at ${list}.`;
    case "weak key":
      return `A DKIM key is too short for receivers to trust: ${list}.`;
    case "missing":
      return `No DKIM key found under the ${a.dkim.details.selectorsTried.length} common selectors tried. If you know your selector, add it and look up again.`;
    default:
      return `A DKIM key was found but cannot be used: ${list}.`;
  }
}
