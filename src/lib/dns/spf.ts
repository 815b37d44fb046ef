/**
 * SPF record syntax (RFC 7208 §4.6, §5, §6, §7): every mechanism and modifier parsed, every
 * syntax error named in words an owner can act on.
 */
import { isIP } from "node:net";
import { finding, type Finding } from "./types";

export type SpfQualifier = "+" | "-" | "~" | "?";
export type SpfMechanismName = "all" | "include" | "a" | "mx" | "ptr" | "ip4" | "ip6" | "exists";

export interface SpfMechanism {
  kind: "mechanism";
  qualifier: SpfQualifier;
  /** the qualifier was written out (e.g. "+all") */
  explicitQualifier: boolean;
  name: SpfMechanismName;
  /** domain-spec or network, as written */
  value?: string;
  cidr4?: number;
  cidr6?: number;
  raw: string;
}

export interface SpfModifier {
  kind: "modifier";
  name: string;
  value: string;
  raw: string;
}

export type SpfTerm = SpfMechanism | SpfModifier;

export interface ParsedSpf {
  terms: SpfTerm[];
  mechanisms: SpfMechanism[];
  redirect?: string;
  exp?: string;
  /** the all mechanism, when present */
  all?: SpfMechanism;
  /** how many terms in this record cost a DNS lookup (include, a, mx, ptr, exists, redirect) */
  lookupTerms: number;
  findings: Finding[];
}

const MECHANISMS = new Set<SpfMechanismName>(["all", "include", "a", "mx", "ptr", "ip4", "ip6", "exists"]);
const LOOKUP_MECHANISMS = new Set<SpfMechanismName>(["include", "a", "mx", "ptr", "exists"]);
const QUALIFIERS = new Set(["+", "-", "~", "?"]);

/** A record is an SPF record when it is "v=spf1" alone or followed by a space (RFC 7208 §4.5). */
export function isSpfRecord(text: string): boolean {
  return /^v=spf1( |$)/i.test(text.trim());
}

/** True when the domain-spec holds macros (%{…}), which only the receiver can expand. */
export function hasMacro(spec: string): boolean {
  return /%\{/.test(spec);
}

/** RFC 7208 §7.1 macro-string syntax and a plausible domain once macros are left aside. */
export function domainSpecProblem(spec: string): string | undefined {
  if (!spec) return "is empty";
  const withoutMacros = spec.replace(/%\{[slodiphcrtv]\d*r?[.\-+,/_=]*\}/gi, "x").replace(/%[%_-]/g, "x");
  if (/%/.test(withoutMacros)) return "has a broken %{…} macro";
  if (/[\s;]/.test(withoutMacros)) return "contains a space or semicolon";
  const name = withoutMacros.replace(/\.$/, "");
  if (!hasMacro(spec)) {
    const labels = name.split(".");
    if (labels.length < 2 || labels.some((l) => !/^[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?$/i.test(l))) return "is not a valid domain name";
  }
  return undefined;
}

function parseCidr(text: string, max: number): number | null {
  if (!/^\d{1,3}$/.test(text)) return null;
  const n = Number(text);
  return n <= max ? n : null;
}

/** Parses one SPF record. `domain` is used only in messages. */
export function parseSpf(record: string, domain = "your domain"): ParsedSpf {
  const findings: Finding[] = [];
  const terms: SpfTerm[] = [];
  const parsed: ParsedSpf = { terms, mechanisms: [], lookupTerms: 0, findings };
  const text = record.trim();
  if (!isSpfRecord(text)) {
    findings.push(finding("error", "spf.version", 'The record does not start with "v=spf1".', 'Begin the record with "v=spf1 ", for example "v=spf1 include:_spf.google.com ~all".'));
    return parsed;
  }
  if (/ {2,}|\t/.test(record.trim())) {
    findings.push(finding("info", "spf.whitespace", "The record has extra spaces between terms; most receivers accept it, a few do not.", "Separate terms with single spaces."));
  }
  const bad = (code: string, raw: string, why: string, fix: string) => findings.push(finding("error", `spf.${code}`, `"${raw}" ${why}.`, fix));
  let afterAll = false;
  for (const raw of text.split(/\s+/).slice(1)) {
    if (!raw) continue;
    if (afterAll && !/^[a-z][a-z0-9_.-]*=/i.test(raw)) {
      findings.push(finding("warning", "spf.after_all", `"${raw}" comes after "all", so receivers never read it.`, `Move "${raw}" before the all mechanism, or delete it.`));
    }
    // modifier: name=value
    const mod = /^([a-z][a-z0-9_.-]*)=(.*)$/i.exec(raw);
    if (mod) {
      const name = mod[1]!.toLowerCase();
      const value = mod[2]!;
      terms.push({ kind: "modifier", name, value, raw });
      if (name === "redirect" || name === "exp") {
        if (parsed[name] !== undefined) bad(`duplicate_${name}`, raw, `repeats the ${name}= modifier, which makes the record invalid`, `Keep a single ${name}=.`);
        const problem = domainSpecProblem(value);
        if (problem) bad(`bad_${name}`, raw, `names a domain that ${problem}`, `Write ${name}= followed by a domain, e.g. ${name}=_spf.example.com.`);
        else parsed[name] = value;
        if (name === "redirect") parsed.lookupTerms++;
      } else {
        findings.push(finding("warning", "spf.unknown_modifier", `"${name}=" is not an SPF modifier, so receivers ignore it.`, `Check the spelling or remove "${raw}".`));
      }
      continue;
    }
    let body = raw;
    let qualifier: SpfQualifier = "+";
    let explicitQualifier = false;
    if (QUALIFIERS.has(body[0]!)) {
      qualifier = body[0] as SpfQualifier;
      explicitQualifier = true;
      body = body.slice(1);
    }
    const m = /^([a-z0-9]+)(?::(.*?))?(?:\/(\d*))?(?:\/\/(\d*))?$/i.exec(body);
    const mechName = (m?.[1] ?? body.split(/[:/]/)[0]!).toLowerCase() as SpfMechanismName;
    if (!m || !MECHANISMS.has(mechName)) {
      const written: string = mechName;
      const guess = written === "ip" || written === "ipv4" ? ' (did you mean "ip4:"?)' : written === "ipv6" ? ' (did you mean "ip6:"?)' : written === "inlcude" || written === "includes" ? ' (did you mean "include:"?)' : "";
      bad("unknown_mechanism", raw, `is not an SPF mechanism${guess}, which makes the whole record invalid`, "Use only all, include:, a, mx, ptr, ip4:, ip6:, exists: and the redirect=/exp= modifiers.");
      continue;
    }
    const mech: SpfMechanism = { kind: "mechanism", qualifier, explicitQualifier, name: mechName, raw };
    // split value and CIDR lengths by hand: ip6 values contain colons, domains may be followed by /24//64
    let rest = body.slice(mechName.length);
    let value: string | undefined;
    let c4: string | undefined;
    let c6: string | undefined;
    if (mechName === "ip4" || mechName === "ip6") {
      if (!rest.startsWith(":")) {
        bad(`missing_${mechName}`, raw, "has no address after the colon", `Write ${mechName}: followed by an address or network, e.g. ${mechName === "ip4" ? "ip4:192.0.2.0/24" : "ip6:2001:db8::/32"}.`);
        continue;
      }
      const [addr, len] = rest.slice(1).split("/");
      value = addr;
      if (mechName === "ip4") c4 = len;
      else c6 = len;
      if (rest.slice(1).split("/").length > 2) c6 = "x";
    } else if (rest.startsWith(":") || rest === "") {
      const slash = rest.search(/\/\d*(\/\/\d*)?$|\/\/\d*$/);
      const specPart = slash >= 0 ? rest.slice(0, slash) : rest;
      const cidrPart = slash >= 0 ? rest.slice(slash) : "";
      value = specPart.startsWith(":") ? specPart.slice(1) : undefined;
      const cm = /^(?:\/(\d*))?(?:\/\/(\d*))?$/.exec(cidrPart);
      c4 = cm?.[1];
      c6 = cm?.[2];
      if (specPart === ":" ) value = "";
    } else if (rest.startsWith("/")) {
      const cm = /^(?:\/(\d*))?(?:\/\/(\d*))?$/.exec(rest);
      if (!cm) {
        bad("bad_cidr", raw, "has a network length that cannot be read", "Write it like a/24 or mx/24//64.");
        continue;
      }
      c4 = cm[1];
      c6 = cm[2];
    } else {
      bad("syntax", raw, "cannot be read", "Check for a missing colon or a stray character.");
      continue;
    }
    mech.value = value;
    if (c4 !== undefined) {
      const n = parseCidr(c4, 32);
      if (n === null) bad("bad_cidr", raw, "has an IPv4 network length that is not 0 to 32", "Use a length from 0 to 32, e.g. /24.");
      else mech.cidr4 = n;
    }
    if (c6 !== undefined) {
      const n = parseCidr(c6, 128);
      if (n === null) bad("bad_cidr", raw, "has an IPv6 network length that is not 0 to 128", "Use a length from 0 to 128, e.g. /64.");
      else mech.cidr6 = n;
    }
    switch (mechName) {
      case "all":
        if (value !== undefined || c4 !== undefined || c6 !== undefined) bad("bad_all", raw, "adds something after all", 'Write just "-all" or "~all".');
        break;
      case "ip4":
        if (!value || isIP(value) !== 4) bad("bad_ip4", raw, "is not a valid IPv4 address or network", "Write it like ip4:192.0.2.10 or ip4:192.0.2.0/24.");
        break;
      case "ip6":
        if (!value || isIP(value) !== 6) bad("bad_ip6", raw, "is not a valid IPv6 address or network", "Write it like ip6:2001:db8::/32.");
        break;
      case "include":
      case "exists":
        if (!value) {
          bad(`missing_${mechName}_domain`, raw, `needs a domain after "${mechName}:"`, `Write ${mechName}: followed by the domain your provider gives you, e.g. include:_spf.google.com.`);
          break;
        }
        if (domainSpecProblem(value)) bad(`bad_${mechName}_domain`, raw, `names a domain that ${domainSpecProblem(value)}`, "Copy the exact value from your email provider's setup instructions.");
        break;
      default:
        if (value !== undefined && domainSpecProblem(value)) bad(`bad_${mechName}_domain`, raw, `names a domain that ${domainSpecProblem(value)}`, `Write ${mechName} alone (meaning ${domain}) or ${mechName}: followed by a domain.`);
    }
    if (findings.some((f) => f.level === "error" && f.message.startsWith(`"${raw}"`))) continue;
    terms.push(mech);
    parsed.mechanisms.push(mech);
    if (LOOKUP_MECHANISMS.has(mechName)) parsed.lookupTerms++;
    if (mechName === "all") {
      parsed.all ??= mech;
      afterAll = true;
    }
  }
  if (parsed.all && parsed.redirect) {
    findings.push(finding("warning", "spf.redirect_ignored", 'The record has both "all" and redirect=; receivers ignore the redirect.', "Remove redirect=, or remove all if the redirected record should decide."));
  }
  return parsed;
}
