/** SMTP TLS reports (RFC 8460 §4) JSON → TlsReport. */
import { normalizeAddress } from "../net/address";
import { MAX_COUNT, outOfRange, quoted } from "./bounds";
import { DEFAULT_LIMITS, MB, ReportRefusedError, type ReportLimits, type TlsFailureDetail, type TlsPolicyResult, type TlsReport } from "./model";

type Json = Record<string, unknown>;
const str = (v: unknown): string | null => (typeof v === "string" && v.trim() !== "" ? v.trim() : typeof v === "number" ? String(v) : null);
/** A session count: a whole number from 0 to MAX_COUNT (a string of digits too); a missing one counts none. */
const num = (v: unknown, name: string): number => {
  if (v === undefined || v === null) return 0;
  const n = typeof v === "number" ? v : typeof v === "string" && /^\s*\d+\s*$/.test(v) ? Number(v) : Number.NaN;
  if (Number.isSafeInteger(n) && n >= 0) return n;
  throw outOfRange(`The SMTP TLS report's ${name} ${typeof v === "string" ? quoted(v) : (JSON.stringify(v) ?? String(v)).slice(0, 64)} is not a whole number from 0 to ${MAX_COUNT.toLocaleString("en-US")}`);
};
/** An address a failure detail names: strict IPv4 or IPv6 in its one written form, else the report is refused. */
const ip = (v: unknown, name: string): string | null => {
  const text = str(v);
  if (text === null) return null;
  const address = normalizeAddress(text);
  if (!address) throw outOfRange(`The SMTP TLS report's ${name} ${quoted(text)} is not an IPv4 or IPv6 address`);
  return address;
};
const strings = (v: unknown): string[] => (Array.isArray(v) ? v.map(str).filter((s): s is string => s !== null) : str(v) ? [str(v)!] : []);
const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);

/** Quick content check on a JSON text's start. */
export function looksLikeTlsJson(head: string): boolean {
  return /"(organization-name|policies|report-id|date-range)"/.test(head);
}

/** Deepest nesting of objects and arrays in a JSON text, found without parsing it. */
export function jsonDepth(json: string, stopAfter: number): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < json.length; i++) {
    const c = json.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > deepest && (deepest = depth) > stopAfter) return deepest;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return deepest;
}

const tooMany = (count: number, max: number, what: string) => {
  if (count > max) throw new ReportRefusedError(`The SMTP TLS report has ${count.toLocaleString("en-US")} ${what}; the most one report may have is ${max.toLocaleString("en-US")}.`, "too_large");
};

export function parseTlsReport(json: string, limits: ReportLimits = DEFAULT_LIMITS): TlsReport {
  if (json.length > limits.maxTlsJsonChars) throw new ReportRefusedError(`The SMTP TLS report is ${MB(json.length)} of JSON; the most one may be is ${MB(limits.maxTlsJsonChars)}.`, "too_large");
  if (jsonDepth(json, limits.maxJsonDepth) > limits.maxJsonDepth) throw new ReportRefusedError(`The SMTP TLS report nests JSON more than ${limits.maxJsonDepth} deep; RFC 8460 needs 4. It was refused.`);
  let doc: unknown;
  try {
    doc = JSON.parse(json);
  } catch (error) {
    throw new ReportRefusedError(`The SMTP TLS report is not valid JSON: ${(error as Error).message}`);
  }
  if (!isObject(doc)) throw new ReportRefusedError("The SMTP TLS report must be a JSON object (RFC 8460).");
  const reportId = str(doc["report-id"]);
  if (!reportId) throw new ReportRefusedError('The SMTP TLS report has no "report-id".');
  const range = isObject(doc["date-range"]) ? doc["date-range"] : {};
  const begin = Date.parse(str(range["start-datetime"]) ?? "");
  const end = Date.parse(str(range["end-datetime"]) ?? "");
  if (Number.isNaN(begin) || Number.isNaN(end)) throw new ReportRefusedError('The SMTP TLS report has no readable "date-range" (start-datetime, end-datetime).');
  if (!Array.isArray(doc.policies) || doc.policies.length === 0) throw new ReportRefusedError('The SMTP TLS report has no "policies".');
  tooMany(doc.policies.length, limits.maxTlsPolicies, '"policies"');

  const policies: TlsPolicyResult[] = [];
  for (const entry of doc.policies) {
    if (!isObject(entry)) continue;
    const policy = isObject(entry.policy) ? entry.policy : {};
    const summary = isObject(entry.summary) ? entry.summary : {};
    const policyDomain = (str(policy["policy-domain"]) ?? "").toLowerCase().replace(/\.$/, "");
    if (!policyDomain) throw new ReportRefusedError('An SMTP TLS report policy has no "policy-domain".');
    const details: unknown[] = Array.isArray(entry["failure-details"]) ? entry["failure-details"] : [];
    tooMany(details.length, limits.maxTlsPolicies, '"failure-details" in one policy');
    const policyString = strings(policy["policy-string"]);
    const mxHost = strings(policy["mx-host"]);
    tooMany(policyString.length, limits.maxItemsPerList, '"policy-string" lines in one policy');
    tooMany(mxHost.length, limits.maxItemsPerList, '"mx-host" entries in one policy');
    const failureDetails: TlsFailureDetail[] = details.filter(isObject).map((d) => ({
      resultType: str(d["result-type"]) ?? "unknown",
      sendingMtaIp: ip(d["sending-mta-ip"], '"sending-mta-ip"'),
      receivingMxHostname: str(d["receiving-mx-hostname"]),
      receivingMxHelo: str(d["receiving-mx-helo"]),
      receivingIp: ip(d["receiving-ip"], '"receiving-ip"'),
      failedSessionCount: num(d["failed-session-count"], '"failed-session-count"'),
      additionalInformation: str(d["additional-information"]),
      failureReasonCode: str(d["failure-reason-code"]),
    }));
    policies.push({
      policyType: str(policy["policy-type"]) ?? "no-policy-found",
      policyString,
      policyDomain,
      mxHost,
      successfulSessions: num(summary["total-successful-session-count"], '"total-successful-session-count"'),
      failedSessions: num(summary["total-failure-session-count"], '"total-failure-session-count"'),
      failureDetails,
    });
  }
  if (policies.length === 0) throw new ReportRefusedError('The SMTP TLS report has no readable "policies".');
  let sessions = 0;
  for (const p of policies) sessions += p.successfulSessions + p.failedSessions;
  if (sessions > MAX_COUNT) throw outOfRange(`The SMTP TLS report's session counts add up to more than ${MAX_COUNT.toLocaleString("en-US")}, the most one report may count`);
  return {
    kind: "tls",
    reporterOrg: str(doc["organization-name"]) ?? "Unknown reporter",
    contactInfo: str(doc["contact-info"]),
    reportId,
    dateBegin: new Date(begin),
    dateEnd: new Date(end),
    policies,
  };
}
