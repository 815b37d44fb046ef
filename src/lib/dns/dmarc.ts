/**
 * DMARC (RFC 7489 and DMARCbis, RFC 9989): choose the record at _dmarc.<domain>, parse and
 * validate every tag, find the policy and the organisational domain by the DNS tree walk, and
 * check that external report destinations have agreed to receive reports.
 */
import { getDomain } from "../tld";
import { finding, type Finding, type TxtLookup, isTemporaryFailure, parseTagList } from "./types";

export type DmarcPolicy = "none" | "quarantine" | "reject";
export type DmarcStatus = DmarcPolicy | "missing" | "invalid";

export interface ReportUri {
  uri: string;
  address: string;
  /** maximum report size, e.g. "10m" */
  size?: string;
  /** the address's host */
  host: string;
  /** outside the policy domain's organisational domain: needs an authorisation record */
  external: boolean;
  /** for external destinations: whether <domain>._report._dmarc.<host> allows it (null when not checked) */
  authorized?: boolean | null;
}

export interface ParsedDmarc {
  tags: Record<string, string>;
  policy?: DmarcPolicy;
  subdomainPolicy?: DmarcPolicy;
  nonExistentPolicy?: DmarcPolicy;
  pct?: number;
  rua: ReportUri[];
  ruf: ReportUri[];
  findings: Finding[];
}

const POLICIES = ["none", "quarantine", "reject"] as const;
const KNOWN_TAGS = new Set(["v", "p", "sp", "np", "pct", "adkim", "aspf", "fo", "rf", "ri", "rua", "ruf", "psd", "t"]);
/** Tags DMARCbis removed, with what to do instead. */
const REMOVED_TAGS: [string, string][] = [
  ["pct", "Remove pct=. To apply a policy to part of your mail while you test it, use t=y (testing mode) with p=quarantine or p=reject, then remove t=y."],
  ["ri", "Remove ri=: receivers send aggregate reports once a day whatever it says."],
  ["rf", "Remove rf=: failure reports always use the one standard format."],
];
const EMAIL = /^[^\s@,;!]+@([a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)+)$/i;

/**
 * The organisational domain by the Public Suffix List, or the name itself when it has none.
 * DMARC policy discovery uses the DNS tree walk (dmarcTreeWalk); this stays for report
 * destinations and alignment, where a DNS walk per host would cost a query per label.
 */
export function organizationalDomain(domain: string): string {
  let org = orgDomains.get(domain);
  if (org === undefined) {
    // bounded: cleared whole once it holds ORG_DOMAIN_CACHE names (the list is fixed, so an answer never goes stale)
    if (orgDomains.size >= ORG_DOMAIN_CACHE) orgDomains.clear();
    org = getDomain(domain, { allowPrivateDomains: false }) ?? domain;
    orgDomains.set(domain, org);
  }
  return org;
}
/** Names whose organizational domain is kept (the tasks, report paths and record checks ask again and again for the same few). */
const ORG_DOMAIN_CACHE = 10_000;
const orgDomains = new Map<string, string>();

/** True when the record's first tag is v=DMARC1 (RFC 7489 §6.3: it must come first). */
export function startsWithDmarc1(record: string): boolean {
  return /^\s*v\s*=\s*DMARC1\s*(;|$)/.test(record);
}

function parseUris(tag: "rua" | "ruf", value: string, policyDomain: string, findings: Finding[]): ReportUri[] {
  const uris: ReportUri[] = [];
  const orgDomain = organizationalDomain(policyDomain);
  const label = tag === "rua" ? "aggregate report" : "failure report";
  for (const raw of value.split(",").map((s) => s.trim())) {
    if (!raw) continue;
    const m = /^mailto:([^!]+)(?:!(\d+)([kmgt]?))?$/i.exec(raw);
    if (!m) {
      findings.push(
        /^mailto:/i.test(raw)
          ? finding("error", `dmarc.${tag}_size`, `The ${label} address "${raw}" has a size limit that is not a number followed by k, m, g or t.`, `Write it as mailto:you@example.com!10m, or remove the "!…" part.`)
          : finding("error", `dmarc.${tag}_not_mailto`, `The ${label} address "${raw}" is not a mailto: address, so no receiver will send reports to it.`, `Write it as mailto:you@${policyDomain}.`),
      );
      continue;
    }
    const address = decodeURIComponent(m[1]!);
    const email = EMAIL.exec(address);
    if (!email) {
      findings.push(finding("error", `dmarc.${tag}_bad_address`, `"${address}" in ${tag}= is not a valid email address.`, `Use a full address such as dmarc@${policyDomain}.`));
      continue;
    }
    const host = email[1]!.toLowerCase();
    uris.push({ uri: raw, address, size: m[2] ? `${m[2]}${m[3] ?? ""}` : undefined, host, external: organizationalDomain(host) !== orgDomain });
  }
  if (!uris.length && value.trim() === "") findings.push(finding("error", `dmarc.${tag}_empty`, `The ${tag}= tag is empty.`, `Put a mailto: address after ${tag}=, or remove the tag.`));
  return uris;
}

/** Parses one DMARC record's tags (RFC 7489 + DMARCbis) and names every problem. */
export function parseDmarcRecord(record: string, policyDomain: string): ParsedDmarc {
  const findings: Finding[] = [];
  const list = parseTagList(record);
  const tags: Record<string, string> = {};
  for (const t of list.tags) tags[t.name] ??= t.value;
  const out: ParsedDmarc = { tags, rua: [], ruf: [], findings };

  if (!startsWithDmarc1(record)) {
    findings.push(finding("error", "dmarc.version_first", 'The DMARC record does not start with "v=DMARC1", so receivers ignore it.', 'Rewrite it so it begins exactly with "v=DMARC1;" — for example "v=DMARC1; p=none; rua=mailto:dmarc@' + policyDomain + '".'));
  }
  for (const part of list.malformed) findings.push(finding("error", "dmarc.syntax", `"${part}" is not a tag=value pair.`, "Separate the tags with semicolons and write each as name=value."));
  for (const name of list.duplicates) findings.push(finding("error", "dmarc.duplicate_tag", `The tag "${name}" appears more than once; receivers may reject the whole record.`, `Keep one "${name}=" and delete the other.`));
  for (const t of list.tags) {
    if (!KNOWN_TAGS.has(t.name)) findings.push(finding("warning", "dmarc.unknown_tag", `"${t.name}=" is not a DMARC tag, so receivers ignore it.`, `Check the spelling, or remove "${t.name}=${t.value}".`));
  }

  const policyTag = (name: "p" | "sp" | "np", what: string): DmarcPolicy | undefined => {
    const v = tags[name];
    if (v === undefined) return undefined;
    const lower = v.toLowerCase();
    if ((POLICIES as readonly string[]).includes(lower)) return lower as DmarcPolicy;
    findings.push(finding("error", `dmarc.bad_${name}`, `${what} "${v}" is not none, quarantine or reject.`, `Set ${name}= to none (monitor only), quarantine (spam folder) or reject.`));
    return undefined;
  };
  if (tags.p === undefined) {
    findings.push(finding("error", "dmarc.missing_p", "The record has no policy (p=), so it does not tell receivers what to do with mail that fails.", "Add p=none to start monitoring, then move to p=quarantine and p=reject once your reports show only your own senders."));
  }
  out.policy = policyTag("p", "The policy");
  out.subdomainPolicy = policyTag("sp", "The subdomain policy");
  out.nonExistentPolicy = policyTag("np", "The policy for non-existent subdomains");

  for (const [name, replacement] of REMOVED_TAGS) {
    if (tags[name] !== undefined) findings.push(finding("warning", "dmarc.removed_tag", `"${name}=${tags[name]}" was removed from DMARC (RFC 9989); receivers that follow the current standard ignore it.`, replacement));
  }
  if (tags.pct !== undefined) {
    if (!/^\d{1,3}$/.test(tags.pct) || Number(tags.pct) > 100) {
      findings.push(finding("error", "dmarc.bad_pct", `pct=${tags.pct} is not a whole number from 0 to 100.`, "Use pct=100 (or remove pct; 100 is the default)."));
    } else {
      out.pct = Number(tags.pct);
      if (out.pct < 100 && out.policy && out.policy !== "none") {
        findings.push(finding("warning", "dmarc.partial_pct", `Only ${out.pct}% of failing messages get the ${out.policy} policy; the rest are delivered normally.`, "Raise pct to 100 once you are confident your legitimate mail passes."));
      }
    }
  }
  for (const name of ["adkim", "aspf"] as const) {
    const v = tags[name];
    if (v !== undefined && !/^[rs]$/i.test(v)) findings.push(finding("error", `dmarc.bad_${name}`, `${name}=${v} must be r (relaxed) or s (strict).`, `Set ${name}=r, or remove it (relaxed is the default).`));
  }
  if (tags.fo !== undefined && !/^[01ds](:[01ds])*$/i.test(tags.fo)) {
    findings.push(finding("error", "dmarc.bad_fo", `fo=${tags.fo} is not a colon-separated list of 0, 1, d and s.`, "Use fo=1 to get a failure report whenever any check fails, or remove fo."));
  }
  if (tags.rf !== undefined && tags.rf.toLowerCase() !== "afrf") findings.push(finding("error", "dmarc.bad_rf", `rf=${tags.rf} is not a known report format.`, "Remove rf= (afrf is the only format and the default)."));
  if (tags.ri !== undefined && (!/^\d{1,10}$/.test(tags.ri) || Number(tags.ri) > 4294967295)) {
    findings.push(finding("error", "dmarc.bad_ri", `ri=${tags.ri} is not a number of seconds.`, "Use ri=86400 (daily reports) or remove it."));
  }
  if (tags.psd !== undefined && !/^[ynu]$/i.test(tags.psd)) findings.push(finding("error", "dmarc.bad_psd", `psd=${tags.psd} must be y, n or u.`, "Remove psd= unless you run a public suffix domain."));
  if (tags.t !== undefined && !/^[yn]$/i.test(tags.t)) findings.push(finding("error", "dmarc.bad_t", `t=${tags.t} must be y or n.`, "Remove t= or set t=n."));
  if (tags.t?.toLowerCase() === "y" && out.policy && out.policy !== "none") {
    findings.push(finding("warning", "dmarc.testing", `Testing mode (t=y) is on: receivers apply a milder policy than ${out.policy}.`, "Remove t=y when you are ready to enforce the policy."));
  }
  if (tags.rua !== undefined) out.rua = parseUris("rua", tags.rua, policyDomain, findings);
  if (tags.ruf !== undefined) out.ruf = parseUris("ruf", tags.ruf, policyDomain, findings);
  if (tags.rua === undefined) {
    findings.push(finding("warning", "dmarc.no_rua", "No aggregate report address (rua=) is set, so you will not learn who sends mail in your name.", `Add rua=mailto:dmarc@${policyDomain} (or the address dmarcwarden gives you).`));
  }
  if (out.policy === "none") {
    findings.push(finding("warning", "dmarc.policy_none", "The policy is none: mail that fails the checks is still delivered, so your domain can still be spoofed.", "Once your reports show that all your real senders pass, change p=none to p=quarantine, then p=reject."));
  }
  return out;
}

/** The hosts that must publish <policyDomain>._report._dmarc.<host> for reports to reach them. */
export function externalDestinations(parsed: ParsedDmarc): string[] {
  return [...new Set([...parsed.rua, ...parsed.ruf].filter((u) => u.external).map((u) => u.host))];
}

export function authorizationName(policyDomain: string, host: string): string {
  return `${policyDomain}._report._dmarc.${host}`;
}

/** At most this many names are queried by the DMARCbis DNS tree walk (the domain and up to 7 ancestors). */
export const TREE_WALK_MAX_LABELS = 8;

/**
 * The names whose _dmarc record the DNS tree walk (RFC 9989 §4.10) may query, nearest first:
 * the domain itself, then — a domain of more than 8 labels shortened to its last 7 — each
 * ancestor down to the top-level domain. At most 8 names.
 */
export function dmarcTreeWalkNames(domain: string): string[] {
  const labels = domain.toLowerCase().replace(/\.$/, "").split(".").filter(Boolean);
  const names = [labels.join(".")];
  let start = labels.length > TREE_WALK_MAX_LABELS ? labels.length - (TREE_WALK_MAX_LABELS - 1) : 1;
  for (; start < labels.length; start++) names.push(labels.slice(start).join("."));
  return names;
}

export interface TreeWalkStep {
  /** the domain whose _dmarc name was queried */
  domain: string;
  /** a single valid-looking DMARC record was found there */
  record: boolean;
  /** its psd= value (y, n, u) when it has one */
  psd?: string;
}

export interface TreeWalk {
  steps: TreeWalkStep[];
  /** the nearest domain with a DMARC record (the policy that applies), or null */
  policyDomain: string | null;
  /**
   * RFC 9989 §4.10.2: the first record with psd=n names itself; the first with psd=y names the
   * domain one label below it; otherwise the record with the fewest labels; without any record,
   * the domain itself.
   */
  organizationalDomain: string;
}

/** The DNS tree walk over the answers for dmarcTreeWalkNames(domain), nearest first. */
export function dmarcTreeWalk(domain: string, lookups: { domain: string; lookup: TxtLookup }[]): TreeWalk {
  const steps: TreeWalkStep[] = lookups.map(({ domain: d, lookup }) => {
    const chosen = pick(lookup, `_dmarc.${d}`);
    if (!chosen.record || chosen.status) return { domain: d, record: false };
    const psd = parseTagList(chosen.record).byName.get("psd")?.toLowerCase();
    return psd ? { domain: d, record: true, psd } : { domain: d, record: true };
  });
  const withRecord = steps.filter((s) => s.record);
  const policyDomain = withRecord[0]?.domain ?? null;
  let organizational: string | null = null;
  for (let i = 0; i < steps.length && !organizational; i++) {
    const step = steps[i]!;
    if (!step.record) continue;
    if (step.psd === "n") organizational = step.domain;
    else if (step.psd === "y") organizational = i === 0 ? step.domain : oneLabelBelow(domain, step.domain);
  }
  organizational ??= withRecord.at(-1)?.domain ?? domain.toLowerCase();
  return { steps, policyDomain, organizationalDomain: organizational };
}

/** The ancestor of `domain` that has one label more than `suffix`. */
function oneLabelBelow(domain: string, suffix: string): string {
  const labels = domain.toLowerCase().split(".");
  const count = suffix.split(".").length + 1;
  return labels.slice(Math.max(0, labels.length - count)).join(".");
}

/** A DMARC record published where receivers never look (the domain's own TXT, or "dmarc." without the underscore). */
export function misplacedDmarcFindings(domain: string, apex: TxtLookup | undefined, withoutUnderscore: TxtLookup | undefined): Finding[] {
  const out: Finding[] = [];
  const isDmarc = (lookup?: TxtLookup) => !!lookup?.records.some((r) => /^\s*v\s*=\s*DMARC1/i.test(r.text));
  if (isDmarc(apex)) out.push(finding("warning", "dmarc.wrong_name", `A DMARC record is published at ${domain} itself; receivers only read it at _dmarc.${domain}, so this one is ignored.`, `Move the record to a TXT record named _dmarc (the full name _dmarc.${domain}) and delete it from ${domain}.`));
  if (isDmarc(withoutUnderscore)) out.push(finding("warning", "dmarc.wrong_name", `A DMARC record is published at dmarc.${domain} (without the underscore); receivers only read _dmarc.${domain}, so this one is ignored.`, `Rename the record to _dmarc.${domain} — with the leading underscore.`));
  return out;
}

export interface DmarcInput {
  domain: string;
  /** TXT at _dmarc.<domain> */
  own: TxtLookup;
  /** TXT at _dmarc.<organisational domain>, when the domain is a subdomain without its own record */
  organizational?: { domain: string; lookup: TxtLookup };
  /** the DNS tree walk's answers for the ancestors (dmarcTreeWalkNames without the domain itself), nearest first; replaces `organizational` */
  ancestors?: { domain: string; lookup: TxtLookup }[];
  /** TXT at <policy domain>._report._dmarc.<host>, by host */
  authorizations?: Record<string, TxtLookup>;
}

export interface DmarcResult {
  status: DmarcStatus;
  recordValue: string | null;
  /** where the record was found, e.g. "_dmarc.example.com" */
  source: string | null;
  inherited: boolean;
  /** the organisational domain (the DNS tree walk when ancestors were given, else the Public Suffix List) */
  organizationalDomain?: string;
  /** the tree walk's steps, nearest first (when ancestors were given) */
  treeWalk?: TreeWalkStep[];
  /** the policy that applies to this domain (sp of the organisational record when inherited) */
  effectivePolicy?: DmarcPolicy;
  parsed?: ParsedDmarc;
  findings: Finding[];
}

/** Chooses the DMARC record among the TXT answers at one name. */
function pick(lookup: TxtLookup, name: string): { record?: string; findings: Finding[]; status?: "missing" | "invalid" } {
  if (isTemporaryFailure(lookup.status)) {
    return { status: "invalid", findings: [finding("error", "dmarc.lookup_failed", `The DNS lookup of ${name} failed (${lookup.status}); the record could not be checked.`, "Try again in a few minutes; if it keeps failing, ask your DNS provider to check the domain's name servers.")] };
  }
  const texts = lookup.records.map((r) => r.text);
  const dmarcLike = texts.filter((t) => /^\s*v\s*=\s*dmarc/i.test(t) || /(^|;)\s*v\s*=\s*DMARC1\s*(;|$)/i.test(t) || /(^|;)\s*p\s*=\s*(none|quarantine|reject)\s*(;|$)/i.test(t));
  if (!dmarcLike.length) return { status: "missing", findings: [] };
  if (dmarcLike.length > 1) {
    return {
      status: "invalid",
      record: dmarcLike.join(" | "),
      findings: [finding("error", "dmarc.multiple_records", `There are ${dmarcLike.length} DMARC records at ${name}; receivers ignore DMARC entirely when there is more than one.`, "Delete all but one of them, keeping the one with the policy you want.")],
    };
  }
  return { record: dmarcLike[0]!, findings: [] };
}

/** Evaluates the resolved DMARC records for one domain. */
export function evaluateDmarc(input: DmarcInput): DmarcResult {
  const ownName = `_dmarc.${input.domain}`;
  let chosen = pick(input.own, ownName);
  let source = ownName;
  let policyDomain = input.domain;
  let inherited = false;
  const walk = input.ancestors ? dmarcTreeWalk(input.domain, [{ domain: input.domain, lookup: input.own }, ...input.ancestors]) : null;
  const orgDomain = walk?.organizationalDomain ?? organizationalDomain(input.domain);
  const walkInfo = walk ? { organizationalDomain: orgDomain, treeWalk: walk.steps } : { organizationalDomain: orgDomain };
  if (chosen.status === "missing" && walk?.policyDomain && walk.policyDomain !== input.domain) {
    const ancestor = input.ancestors!.find((a) => a.domain === walk.policyDomain)!;
    chosen = pick(ancestor.lookup, `_dmarc.${ancestor.domain}`);
    source = `_dmarc.${ancestor.domain}`;
    policyDomain = ancestor.domain;
    inherited = true;
  } else if (!walk && chosen.status === "missing" && input.organizational && input.organizational.domain !== input.domain) {
    const orgName = `_dmarc.${input.organizational.domain}`;
    const fromOrg = pick(input.organizational.lookup, orgName);
    if (fromOrg.status !== "missing") {
      chosen = fromOrg;
      source = orgName;
      policyDomain = input.organizational.domain;
      inherited = true;
    }
  }
  if (chosen.status === "missing") {
    return {
      status: "missing",
      recordValue: null,
      source: null,
      inherited: false,
      ...walkInfo,
      findings: [finding("error", "dmarc.missing", `No DMARC record found at ${ownName}. Without one, anyone can send mail that claims to be from ${input.domain}.`, `Add a TXT record named _dmarc with the value "v=DMARC1; p=none; rua=mailto:dmarc@${input.domain}" to start monitoring.`)],
    };
  }
  const findings = [...chosen.findings];
  if (inherited) findings.push(finding("info", "dmarc.inherited", `${input.domain} has no DMARC record of its own; the record of ${policyDomain} applies to it.`, `To give ${input.domain} its own policy, add a TXT record at ${ownName}.`));
  if (walk && orgDomain !== input.domain) findings.push(finding("info", "dmarc.organizational_domain", `The organizational domain of ${input.domain} is ${orgDomain} (found by the DMARC DNS tree walk): mail signed or sent by any name under ${orgDomain} aligns in relaxed mode.`));
  if (chosen.status === "invalid" || !chosen.record) {
    return { status: "invalid", recordValue: chosen.record ?? null, source, inherited, ...walkInfo, findings };
  }
  const parsed = parseDmarcRecord(chosen.record, policyDomain);
  findings.push(...parsed.findings);
  for (const uri of [...parsed.rua, ...parsed.ruf]) {
    if (!uri.external) continue;
    const auth = input.authorizations?.[uri.host];
    if (!auth) {
      uri.authorized = null;
      continue;
    }
    uri.authorized = auth.records.some((r) => startsWithDmarc1(r.text));
    if (!uri.authorized && !isTemporaryFailure(auth.status)) {
      findings.push(
        finding("warning", "dmarc.external_unauthorized", `Reports for ${uri.address} will be dropped: ${uri.host} has not published ${authorizationName(policyDomain, uri.host)} to accept reports about ${policyDomain}.`, `Ask the owner of ${uri.host} (your report provider) to publish a TXT record "v=DMARC1" at ${authorizationName(policyDomain, uri.host)}, or send reports to an address at ${policyDomain}.`),
      );
    }
  }
  const hasErrors = findings.some((f) => f.level === "error");
  const effective = inherited ? (parsed.subdomainPolicy ?? parsed.policy) : parsed.policy;
  if (hasErrors || !effective) return { status: "invalid", recordValue: chosen.record, source, inherited, ...walkInfo, parsed, findings };
  return { status: effective, recordValue: chosen.record, source, inherited, ...walkInfo, effectivePolicy: effective, parsed, findings };
}
