/**
 * DMARC failure (RUF) reports: ARF messages (RFC 5965, auth-failure extension RFC 6591,
 * DMARC fields from RFC 7489 §7.3) and plain-text failure notices without an ARF part.
 * Input is a mail message already split into parts by the container layer.
 */
import { normaliseIp } from "./aggregate";
import { dateInBounds } from "./bounds";
import { ReportRefusedError, type FailureReport } from "./model";

/** The bits of a parsed mail message the failure parser reads. */
export interface FailureMail {
  from: string | null;
  subject: string | null;
  messageId: string | null;
  date: Date | null;
  text: string;
  /** body of the message/feedback-report part */
  feedbackReport: string | null;
  /** the original message (message/rfc822) or its headers (text/rfc822-headers) */
  original: string | null;
  /** digest of the message, used as a report id when it has no Message-ID */
  digest: string;
}

const MAX_ORIGINAL_HEADERS = 32 * 1024;
/** an ARF machine-readable part is a few header lines; anything far larger is not one */
export const MAX_FEEDBACK_PART = 64 * 1024;
/** how much of a plain-text notice is searched for its labelled lines */
const MAX_NOTICE_TEXT = 256 * 1024;

/** "Name: value" header block with folded lines → lower-case name → values. */
export function parseHeaderBlock(block: string): Map<string, string[]> {
  const fields = new Map<string, string[]>();
  let name: string | null = null;
  let value = "";
  const flush = () => {
    if (name) fields.set(name, [...(fields.get(name) ?? []), value.trim()]);
  };
  for (const line of block.split(/\r?\n/)) {
    if (line === "") {
      if (name) break; // end of the header block
      continue;
    }
    if (/^[ \t]/.test(line) && name) {
      value += ` ${line.trim()}`;
      continue;
    }
    const i = line.indexOf(":");
    if (i <= 0) continue;
    flush();
    name = line.slice(0, i).trim().toLowerCase();
    value = line.slice(i + 1);
  }
  flush();
  return fields;
}

/** A header value as people read it: RFC 2047 encoded words (=?UTF-8?B?…?=) decoded by the MIME library. */
export function decodedHeader(value: string | null): string | null {
  if (value === null) return null;
  try {
    // the MIME library loads with the first failure report
    return (require("postal-mime") as typeof import("postal-mime")).decodeWords(value);
  } catch {
    return value;
  }
}

/** Only the header block of an original message (everything before the first blank line). */
export function headerBlockOf(original: string): string {
  const end = original.search(/\r?\n\r?\n/);
  return (end < 0 ? original : original.slice(0, end)).slice(0, MAX_ORIGINAL_HEADERS);
}

const domainOfAddress = (v: string | null | undefined): string | null => {
  if (!v) return null;
  const m = /@([A-Za-z0-9.-]+\.[A-Za-z]{2,})/.exec(v);
  return m ? m[1]!.toLowerCase().replace(/\.$/, "") : null;
};
const stripAngles = (v: string | undefined | null) => (v ? v.replace(/^<|>$/g, "").trim() || null : null);
const IPV4 = /\b(?:\d{1,3}\.){3}\d{1,3}\b/;
const IPV6 = /\b(?:[0-9a-f]{1,4}:){2,7}[0-9a-f]{0,4}\b/i;

/** A date the report states; null when unreadable or outside DATE_BOUNDS (the report is kept without it). */
function parseDate(v: string | null | undefined, now: number | undefined): Date | null {
  if (!v) return null;
  const date = new Date(Date.parse(v.replace(/\s*\([^)]*\)\s*$/, "")));
  return dateInBounds(date, now) ? date : null;
}

function reporterOf(mail: FailureMail, userAgent: string | null): string {
  return domainOfAddress(mail.from) ?? userAgent ?? "Unknown reporter";
}

/** `now`: the server's clock (ms) the report's dates are checked against, the time of reading when unset. */
export function parseFailureReport(mail: FailureMail, now?: number): FailureReport {
  const originalHeaders = mail.original ? headerBlockOf(mail.original) : null;
  const original = originalHeaders ? parseHeaderBlock(originalHeaders) : new Map<string, string[]>();
  const first = (m: Map<string, string[]>, k: string) => m.get(k)?.[0] ?? null;

  if (mail.feedbackReport) {
    if (mail.feedbackReport.length > MAX_FEEDBACK_PART) throw new ReportRefusedError(`The failure report's message/feedback-report part is longer than ${MAX_FEEDBACK_PART / 1024} KB, far more than its fields need; it was refused.`, "too_large");
    const arf = parseHeaderBlock(mail.feedbackReport);
    const get = (k: string) => first(arf, k);
    const domain = (get("reported-domain") ?? domainOfAddress(first(original, "from")) ?? get("dkim-domain") ?? domainOfAddress(get("original-mail-from")))?.toLowerCase().replace(/\.$/, "");
    if (!domain) throw new ReportRefusedError("The failure report names no domain (no Reported-Domain, and no From in the original headers).");
    // a Source-IP that is not an address is left out, like a missing one
    const ip = get("source-ip");
    return {
      kind: "failure",
      feedbackType: get("feedback-type")?.toLowerCase() ?? null,
      authFailure: get("auth-failure")?.toLowerCase() ?? null,
      reporterOrg: reporterOf(mail, get("user-agent")),
      reportId: stripAngles(mail.messageId) ?? mail.digest,
      domain,
      sourceIp: ip ? normaliseIp(ip) : null,
      arrivalDate: parseDate(get("arrival-date") ?? get("received-date"), now),
      authenticationResults: arf.get("authentication-results")?.join("\n") ?? null,
      identityAlignment: get("identity-alignment")?.toLowerCase() ?? null,
      deliveryResult: get("delivery-result")?.toLowerCase() ?? null,
      dkimDomain: get("dkim-domain"),
      dkimSelector: get("dkim-selector"),
      spfDns: get("spf-dns"),
      originalMailFrom: stripAngles(get("original-mail-from")),
      originalRcptTo: stripAngles(get("original-rcpt-to")),
      originalFrom: decodedHeader(first(original, "from")),
      originalSubject: decodedHeader(first(original, "subject")),
      originalMessageId: stripAngles(first(original, "message-id")),
      originalHeaders,
      plainText: false,
    };
  }

  // A plain-text notice: read what it states in "Label: value" lines.
  const text = mail.text.slice(0, MAX_NOTICE_TEXT);
  const labelled = (labels: string[]) => {
    for (const label of labels) {
      // [ \t] rather than \s: a label never spans lines, and \s* at each line start would rescan blank runs
      const m = new RegExp(`^[ \\t]*${label}[ \\t]*:[ \\t]*(.+)$`, "im").exec(text);
      if (m) return m[1]!.trim();
    }
    return null;
  };
  const domainText = labelled(["Reported[- ]Domain", "Sender Domain", "Domain", "Header[- ]From"]);
  const subjectDomain = /\b(?:for|domain)\s+([a-z0-9-]+(?:\.[a-z0-9-]+)+)\b/i.exec(mail.subject ?? "")?.[1];
  const domain = (domainOfAddress(domainText) ?? domainText?.split(/\s/)[0] ?? domainOfAddress(first(original, "from")) ?? subjectDomain)?.toLowerCase().replace(/\.$/, "");
  if (!domain || !/^[a-z0-9-]+(\.[a-z0-9-]+)+$/.test(domain)) throw new ReportRefusedError("No DMARC report was found in this message (no aggregate or TLS report attached, no failure report part, and no domain named in its text).");
  const ipText = labelled(["Source[- ]IP", "Sender IP Address", "Sender IP", "IP Address", "Source IP Address"]) ?? text;
  const ip = IPV4.exec(ipText)?.[0] ?? IPV6.exec(ipText)?.[0] ?? null;
  const spfAligned = labelled(["SPF Alignment"]);
  const dkimAligned = labelled(["DKIM Alignment"]);
  const aligned = [dkimAligned && /^(yes|pass|true)/i.test(dkimAligned) ? "dkim" : null, spfAligned && /^(yes|pass|true)/i.test(spfAligned) ? "spf" : null].filter(Boolean);
  return {
    kind: "failure",
    feedbackType: null,
    authFailure: /dmarc/i.test(`${mail.subject} ${text}`) ? "dmarc" : null,
    reporterOrg: reporterOf(mail, null),
    reportId: stripAngles(mail.messageId) ?? mail.digest,
    domain,
    sourceIp: ip ? normaliseIp(ip) : null,
    arrivalDate: parseDate(labelled(["Arrival[- ]Date", "Received Date", "Date Received"]), now) ?? (mail.date && dateInBounds(mail.date, now) ? mail.date : null),
    authenticationResults: labelled(["Authentication[- ]Results", "DMARC Results"]),
    identityAlignment: spfAligned || dkimAligned ? (aligned.length ? aligned.join(", ") : "none") : null,
    deliveryResult: labelled(["Delivery[- ]Result", "Disposition"])?.toLowerCase() ?? null,
    dkimDomain: null,
    dkimSelector: null,
    spfDns: null,
    originalMailFrom: null,
    originalRcptTo: null,
    originalFrom: decodedHeader(first(original, "from")),
    originalSubject: decodedHeader(first(original, "subject")),
    originalMessageId: stripAngles(first(original, "message-id")),
    originalHeaders,
    plainText: true,
  };
}
