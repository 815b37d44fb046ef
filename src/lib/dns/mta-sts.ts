/**
 * The MTA-STS policy file (RFC 8461 §3.2) fetched from https://mta-sts.<domain>/.well-known/mta-sts.txt:
 * parsed, and checked for mode, max_age and that every MX host matches an mx: pattern.
 */
import { finding, type Finding } from "./types";

export type MtaStsMode = "enforce" | "testing" | "none";

export interface MtaStsPolicy {
  version: string | null;
  mode: string | null;
  maxAge: number | null;
  mx: string[];
}

/** Senders refuse policy files larger than this (the probe fetches no more). */
export const MTA_STS_MAX_BYTES = 64 * 1024;
/** RFC 8461 §3.2: max_age is at most 31557600 seconds (about a year). */
export const MTA_STS_MAX_AGE_LIMIT = 31_557_600;
/** A policy cached for less than a day protects little between fetches. */
export const MTA_STS_MAX_AGE_SHORT = 86_400;

export const mtaStsPolicyUrl = (domain: string) => `https://mta-sts.${domain}/.well-known/mta-sts.txt`;

/** "key: value" lines (LF or CRLF); unknown keys are kept out, malformed lines reported. */
export function parseMtaStsPolicy(text: string): { policy: MtaStsPolicy; findings: Finding[] } {
  const policy: MtaStsPolicy = { version: null, mode: null, maxAge: null, mx: [] };
  const findings: Finding[] = [];
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (!line) continue;
    const m = /^([A-Za-z0-9_]+)\s*:\s*(.*)$/.exec(line);
    if (!m) {
      findings.push(finding("error", "mta_sts.policy_syntax", `The MTA-STS policy line "${line.slice(0, 80)}" is not "key: value".`, "Write each line of the policy file as key: value (version, mode, max_age, mx)."));
      continue;
    }
    const key = m[1]!.toLowerCase();
    const value = m[2]!.trim();
    if (key === "version") policy.version = value;
    else if (key === "mode") policy.mode = value;
    else if (key === "max_age") policy.maxAge = /^\d{1,10}$/.test(value) ? Number(value) : NaN;
    else if (key === "mx") policy.mx.push(value.toLowerCase());
  }
  return { policy, findings };
}

/** RFC 8461 §4.1: a pattern matches the host exactly, or "*.example.com" matches exactly one label in front of example.com. */
export function mxMatchesPattern(host: string, pattern: string): boolean {
  const h = host.toLowerCase().replace(/\.$/, "");
  const p = pattern.toLowerCase().replace(/\.$/, "");
  if (p.startsWith("*.")) {
    const suffix = p.slice(1);
    return h.endsWith(suffix) && !h.slice(0, -suffix.length).includes(".") && h.length > suffix.length;
  }
  return h === p;
}

/** Findings for a fetched policy file: syntax, version, mode, max_age, and the MX hosts it covers. */
export function evaluateMtaStsPolicy(domain: string, text: string, mxHosts: string[]): { policy: MtaStsPolicy; findings: Finding[] } {
  const { policy, findings } = parseMtaStsPolicy(text);
  const url = mtaStsPolicyUrl(domain);
  if (policy.version !== "STSv1") findings.push(finding("error", "mta_sts.policy_version", `The policy file at ${url} does not say "version: STSv1"${policy.version ? ` (it says "${policy.version}")` : ""}, so senders ignore it.`, 'Make the first line of the file "version: STSv1".'));
  const mode = policy.mode?.toLowerCase();
  if (mode !== "enforce" && mode !== "testing" && mode !== "none") {
    findings.push(finding("error", "mta_sts.policy_mode", `The policy file's mode is ${policy.mode ? `"${policy.mode}"` : "missing"}; it must be enforce, testing or none.`, 'Add "mode: testing" to start, and "mode: enforce" once the TLS reports show no failures.'));
  } else if (mode === "testing") {
    findings.push(finding("warning", "mta_sts.mode_testing", "MTA-STS is in testing mode: senders report TLS failures but still deliver over unencrypted or unverified connections.", 'Once your TLS reports show no failures, change the policy file to "mode: enforce" (and change the id= of the _mta-sts record).'));
  } else if (mode === "none") {
    findings.push(finding("warning", "mta_sts.mode_none", "MTA-STS mode is none: the policy is switched off.", 'Set "mode: testing" or "mode: enforce" if you want senders to require TLS.'));
  }
  if (policy.maxAge === null || Number.isNaN(policy.maxAge) || policy.maxAge > MTA_STS_MAX_AGE_LIMIT) {
    findings.push(finding("error", "mta_sts.max_age_invalid", `The policy file's max_age is ${policy.maxAge === null ? "missing" : "not a number of seconds up to 31557600"}.`, 'Add "max_age: 604800" (one week) or more, up to 31557600.'));
  } else if (policy.maxAge < MTA_STS_MAX_AGE_SHORT) {
    findings.push(finding("warning", "mta_sts.max_age_short", `max_age is ${policy.maxAge} seconds: senders forget the policy within a day, which leaves room for a downgrade attack.`, 'Raise max_age to at least a week ("max_age: 604800") once the policy is stable.'));
  }
  if (mode !== "none") {
    if (!policy.mx.length) findings.push(finding("error", "mta_sts.policy_no_mx", "The policy file lists no mx: lines, so no mail server is allowed under it.", `Add one "mx:" line per mail server, e.g. "mx: ${mxHosts[0] ?? `mail.${domain}`}".`));
    else {
      for (const host of mxHosts) {
        if (!policy.mx.some((p) => mxMatchesPattern(host, p))) {
          findings.push(finding("error", "mta_sts.mx_not_covered", `The MX host ${host} matches no mx: line of the MTA-STS policy; senders that enforce the policy will not deliver to it.`, `Add "mx: ${host}" (or a *.parent pattern that covers it) to the policy file, and change the id= of the _mta-sts record.`));
        }
      }
    }
  }
  return { policy, findings };
}
