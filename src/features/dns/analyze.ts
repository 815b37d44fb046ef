/**
 * The full DNS analysis of one domain: DMARC (the DNSbis tree walk, report authorisations,
 * misplaced records), the SPF tree, DKIM selectors and the extras (MX hosts, MTA-STS, TLS-RPT,
 * BIMI, DNSSEC), every independent query in parallel. With probe options it also fetches the
 * MTA-STS policy and the BIMI logo and tries STARTTLS on the MX hosts (probes.ts). The checks
 * themselves are the pure functions of src/lib/dns; this module only resolves and fetches.
 */
import { COMMON_DKIM_SELECTORS, evaluateDkim, type DkimKey, type DkimStatus } from "../../lib/dns/dkim";
import { authorizationName, dmarcTreeWalkNames, evaluateDmarc, externalDestinations, misplacedDmarcFindings, organizationalDomain, type DmarcStatus, type ReportUri, type TreeWalkStep } from "../../lib/dns/dmarc";
import { evaluateBimi, evaluateDnssec, evaluateMtaSts, evaluateMx, evaluateTlsRpt, type ExtraResult } from "../../lib/dns/extras";
import { BIMI_SVG_MAX_BYTES, checkBimiSvg } from "../../lib/dns/bimi-svg";
import { evaluateMtaStsPolicy, MTA_STS_MAX_BYTES, mtaStsPolicyUrl } from "../../lib/dns/mta-sts";
import { certificateFindings, mxHostFindings, type MxHostCheck } from "../../lib/dns/transport";
import { httpsGet, mapLimited, probeSmtp, type ProbeFailure, type ProbeOptions } from "./probes";
import { overallStatus, type OverallStatus } from "../../lib/dns/overall";
import { summarizeSpf, walkSpf, type SpfNode, type SpfStatus } from "../../lib/dns/spf-tree";
import { finding, type Finding, isTemporaryFailure, type LookupStatus, type TxtLookup } from "../../lib/dns/types";
import type { DnsResolver } from "./resolver";

/** SPEC §3's {recordValue, isValid, errorMessage}, plus the status badge word, warnings, findings and details. */
export interface RecordCheck<S extends string, D> {
  recordValue: string | null;
  isValid: boolean;
  errorMessage: string | null;
  status: S;
  warnings: string[];
  findings: Finding[];
  details: D;
}

export interface DmarcDetails {
  source: string | null;
  inherited: boolean;
  tags: Record<string, string>;
  policy: string | null;
  subdomainPolicy: string | null;
  pct: number | null;
  rua: ReportUri[];
  ruf: ReportUri[];
  /** np=: the policy for subdomains that do not exist (DMARCbis) */
  nonExistentPolicy: string | null;
  /** t=y: testing mode (DMARCbis) */
  testing: boolean;
  /** the organisational domain found by the DMARCbis DNS tree walk */
  organizationalDomain: string;
  /** the tree walk's names, nearest first, and what each had */
  treeWalk: TreeWalkStep[];
}

export interface SpfDetails {
  lookupCount: number;
  lookupLimit: number;
  voidLookups: number;
  tree: SpfNode | null;
}

export interface DkimDetails {
  selectorsTried: string[];
  keys: Pick<DkimKey, "selector" | "record" | "status" | "keyType" | "bits" | "testing">[];
}

/** A check whose lookups the DNS server did not answer (timeout, SERVFAIL, refused): nothing is known, nothing is judged. */
export type Unchecked = "unchecked";

/** What the lookup, the domain status and `dmarcwarden check` say for such a check. */
export const NOT_ANSWERED = "could not check (DNS server did not answer)";

export interface DnsAnalysis {
  domain: string;
  checkedAt: string;
  dmarc: RecordCheck<DmarcStatus | Unchecked, DmarcDetails>;
  spf: RecordCheck<SpfStatus | Unchecked, SpfDetails>;
  dkim: RecordCheck<DkimStatus | Unchecked, DkimDetails>;
  /** mx.details.hostChecks, mtaSts.details.policy, bimi.details.svgChecked: what the probes found */
  extras: { mx: ExtraResult; mtaSts: ExtraResult; tlsRpt: ExtraResult; bimi: ExtraResult; dnssec: ExtraResult };
  /** "unchecked" when DMARC, SPF or DKIM could not be checked: no verdict is built on missing answers */
  overallStatus: OverallStatus | Unchecked;
  /** a DNS server failed or timed out on a main lookup (DMARC, SPF or DKIM is "unchecked"): do not store the statuses */
  incomplete: boolean;
}

/** An analysis whose DMARC, SPF and DKIM were all answered (what domain checks store). */
export type CompleteAnalysis = DnsAnalysis & {
  dmarc: RecordCheck<DmarcStatus, DmarcDetails>;
  spf: RecordCheck<SpfStatus, SpfDetails>;
  dkim: RecordCheck<DkimStatus, DkimDetails>;
  overallStatus: OverallStatus;
};

export function isComplete(analysis: DnsAnalysis): analysis is CompleteAnalysis {
  return !analysis.incomplete && analysis.overallStatus !== "unchecked";
}

const FAILED_WORDS: Partial<Record<LookupStatus, string>> = { timeout: "timed out", servfail: "got SERVFAIL (server failure)", refused: "was refused" };

/** The one finding of a check whose lookup was not answered: no record, no verdict, no setup advice. */
function notAnsweredFinding(name: string, status: LookupStatus): Finding {
  return finding(
    "warning",
    "dns.not_answered",
    `Could not check (DNS server did not answer): the lookup of ${name} ${FAILED_WORDS[status] ?? "failed"}. Nothing is known about this record yet.`,
    "Try again in a few minutes. If it keeps failing, the domain's name servers (or the DNS server this check asks) are not answering.",
  );
}

function uncheckedRecord<S extends string, D>(check: RecordCheck<S, D>, name: string, status: LookupStatus): RecordCheck<S | Unchecked, D> {
  return { ...check, status: "unchecked", isValid: false, recordValue: null, errorMessage: `Could not check (DNS server did not answer)`, warnings: [], findings: [notAnsweredFinding(name, status)] };
}

function uncheckedExtra(name: string, status: LookupStatus): ExtraResult {
  return { status: "unchecked", recordValue: null, findings: [notAnsweredFinding(name, status)] };
}

/** The first lookup that was not answered, or null. */
const firstFailure = (...lookups: [string, { status: LookupStatus }][]): [string, LookupStatus] | null => {
  const failed = lookups.find(([, l]) => isTemporaryFailure(l.status));
  return failed ? [failed[0], failed[1].status] : null;
};

export interface AnalyzeOptions {
  /** selectors the user typed */
  selectors?: string[];
  /** selectors seen in the organisation's DMARC reports */
  reportSelectors?: string[];
  now?: () => Date;
  /** fetch the MTA-STS policy and the BIMI logo, try STARTTLS on the MX hosts; absent: DNS only */
  probes?: ProbeOptions;
}

/** MX hosts checked (resolved, probed) at most, by priority. */
const MX_HOSTS_CHECKED = 5;
const SMTP_PROBES_AT_ONCE = 3;

function check<S extends string, D>(status: S, isValid: boolean, recordValue: string | null, findings: Finding[], details: D): RecordCheck<S, D> {
  const firstError = findings.find((f) => f.level === "error");
  return {
    recordValue,
    isValid,
    errorMessage: isValid ? null : (firstError?.message ?? null),
    status,
    warnings: findings.filter((f) => f.level === "warning").map((f) => f.message),
    findings,
    details,
  };
}

/** Selectors to try, in order, without duplicates: the user's, the reports', then the common list. */
export function selectorsToTry(options: AnalyzeOptions): string[] {
  const all = [...(options.selectors ?? []), ...(options.reportSelectors ?? []), ...COMMON_DKIM_SELECTORS].map((s) => s.trim().toLowerCase()).filter(Boolean);
  return [...new Set(all)];
}

export async function analyzeDomain(resolver: DnsResolver, domain: string, options: AnalyzeOptions = {}): Promise<DnsAnalysis> {
  const selectors = selectorsToTry(options);
  const now = options.now?.() ?? new Date();
  const dmarcTask = (async () => {
    // the DNSbis tree walk: every name up the tree is asked at once (at most 8), so inheritance costs no extra round trip
    const walkNames = dmarcTreeWalkNames(domain);
    const [ownLookup, ...ancestorLookups] = await Promise.all(walkNames.map((d) => resolver.txt(`_dmarc.${d}`)));
    const own = ownLookup!;
    const ancestors = walkNames.slice(1).map((d, i) => ({ domain: d, lookup: ancestorLookups[i]! }));
    const first = evaluateDmarc({ domain, own, ancestors });
    if (!first.parsed) return { result: first, own, ancestors };
    const policyDomain = first.source?.replace(/^_dmarc\./, "") ?? domain;
    const hosts = externalDestinations(first.parsed);
    if (!hosts.length) return { result: first, own, ancestors };
    const authorizations: Record<string, TxtLookup> = {};
    await Promise.all(hosts.map(async (h) => void (authorizations[h] = await resolver.txt(authorizationName(policyDomain, h)))));
    return { result: evaluateDmarc({ domain, own, ancestors, authorizations }), own, ancestors };
  })();
  // a DMARC record where receivers never look: the domain's own TXT (shared with the SPF walk's query) and "dmarc." without the underscore
  const misplacedTask = Promise.all([resolver.txt(domain), resolver.txt(`dmarc.${domain}`)]).then(([apex, bare]) => misplacedDmarcFindings(domain, apex, bare));
  const spfTask = walkSpf(domain, resolver);
  const dkimTask = (async () => {
    const lookups = await Promise.all(selectors.map(async (s): Promise<[string, TxtLookup]> => [s, await resolver.txt(`${s}._domainkey.${domain}`)]));
    return { ...evaluateDkim(domain, lookups), lookups };
  })();
  const mxTask = (async () => {
    const mx = await resolver.mx(domain);
    if (isTemporaryFailure(mx.status)) return { result: uncheckedExtra(`the MX records of ${domain}`, mx.status), hosts: [], checks: [] };
    const result = evaluateMx(domain, mx);
    const hosts = mxHostNames(result);
    const checks = await mapLimited(hosts, SMTP_PROBES_AT_ONCE, (host) => checkMxHost(resolver, host, options.probes));
    return { result, hosts, checks };
  })();
  const dnssecTask = checkDnssec(resolver, domain);
  const extrasTask = Promise.all([resolver.txt(`_mta-sts.${domain}`), resolver.txt(`_smtp._tls.${domain}`), resolver.txt(`default._bimi.${domain}`)]);
  const [{ result: dmarc, own, ancestors }, misplaced, spfTree, dkim, mxChecked, dnssec, [mtaSts, tlsRpt, bimi]] = await Promise.all([dmarcTask, misplacedTask, spfTask, dkimTask, mxTask, dnssecTask, extrasTask]);
  const spf = summarizeSpf(spfTree);
  const dmarcFindings = [...dmarc.findings, ...misplaced];
  const dmarcValid = dmarc.status === "reject" || dmarc.status === "quarantine" || dmarc.status === "none";
  const mx = mxChecked.result.status === "unchecked" ? mxChecked.result : withFindings(mxChecked.result, mxHostFindings(mxChecked.checks, now), { hostChecks: mxChecked.checks });
  const bimiResult = isTemporaryFailure(bimi.status) ? uncheckedExtra(`default._bimi.${domain}`, bimi.status) : evaluateBimi(domain, bimi, dmarc.status === "quarantine" || dmarc.status === "reject");
  const [mtaStsResult, bimiChecked] = await Promise.all([
    isTemporaryFailure(mtaSts.status) ? uncheckedExtra(`_mta-sts.${domain}`, mtaSts.status) : checkMtaStsPolicy(resolver, domain, evaluateMtaSts(domain, mtaSts), mxChecked.hosts, now, options.probes),
    checkBimiLogo(resolver, bimiResult, now, options.probes),
  ]);
  // DNS failures are not findings: a check whose lookup was not answered says so and judges nothing
  // "missing" while a name up the tree went unanswered is not known to be missing: the policy may be there
  const dmarcFailed = firstFailure([`_dmarc.${domain}`, own]) ?? (dmarc.status === "missing" ? firstFailure(...ancestors.map((a): [string, TxtLookup] => [`_dmarc.${a.domain}`, a.lookup])) : null);
  const spfFailed = firstFailure([domain, { status: spfTree.lookupStatus }]);
  // no usable key found while some selectors went unanswered: the key may be behind one of them
  const dkimFailed = dkim.status === "valid" ? null : firstFailure(...dkim.lookups.map(([sel, l]): [string, TxtLookup] => [`${sel}._domainkey.${domain}`, l]));
  const incomplete = !!(dmarcFailed || spfFailed || dkimFailed);
  const analysis: DnsAnalysis = {
    domain,
    checkedAt: now.toISOString(),
    dmarc: check(dmarc.status, dmarcValid, dmarc.recordValue, dmarcFindings, {
      source: dmarc.source,
      inherited: dmarc.inherited,
      tags: dmarc.parsed?.tags ?? {},
      policy: dmarc.parsed?.policy ?? null,
      subdomainPolicy: dmarc.parsed?.subdomainPolicy ?? null,
      pct: dmarc.parsed?.pct ?? null,
      rua: dmarc.parsed?.rua ?? [],
      ruf: dmarc.parsed?.ruf ?? [],
      nonExistentPolicy: dmarc.parsed?.nonExistentPolicy ?? null,
      testing: dmarc.parsed?.tags.t?.toLowerCase() === "y",
      organizationalDomain: dmarc.organizationalDomain ?? organizationalDomain(domain),
      treeWalk: dmarc.treeWalk ?? [],
    }),
    spf: check(spf.status, spf.status === "valid", spf.recordValue, spf.findings, { lookupCount: spf.lookupCount, lookupLimit: 10, voidLookups: spf.voidLookups, tree: spfTree.record ? spfTree : null }),
    dkim: check(dkim.status, dkim.status === "valid", dkim.recordValue, dkim.findings, {
      selectorsTried: dkim.selectorsTried,
      keys: dkim.keys.map(({ selector, record, status, keyType, bits, testing }) => ({ selector, record, status, keyType, bits, testing })),
    }),
    extras: {
      mx,
      mtaSts: mtaStsResult,
      tlsRpt: isTemporaryFailure(tlsRpt.status) ? uncheckedExtra(`_smtp._tls.${domain}`, tlsRpt.status) : evaluateTlsRpt(domain, tlsRpt),
      bimi: bimiChecked,
      dnssec,
    },
    overallStatus: incomplete ? "unchecked" : overallStatus(dmarc.status, spf.status, dkim.status),
    incomplete,
  };
  if (dmarcFailed) analysis.dmarc = uncheckedRecord(analysis.dmarc, ...dmarcFailed);
  if (spfFailed) analysis.spf = uncheckedRecord(analysis.spf, ...spfFailed);
  if (dkimFailed) analysis.dkim = uncheckedRecord(analysis.dkim, ...dkimFailed);
  return analysis;
}

/** The result with more findings and details; an error among them makes a configured result invalid. */
function withFindings(result: ExtraResult, more: Finding[], details: Record<string, unknown>): ExtraResult {
  const findings = [...result.findings, ...more];
  const status = result.status === "configured" && more.some((f) => f.level === "error") ? "invalid" : result.status;
  return { ...result, status, findings, details: { ...result.details, ...details } };
}

function mxHostNames(mx: ExtraResult): string[] {
  if (mx.details?.nullMx) return [];
  const hosts = (mx.details?.hosts as { exchange: string }[] | undefined) ?? [];
  return [...new Set(hosts.map((h) => h.exchange).filter(Boolean))].slice(0, MX_HOSTS_CHECKED);
}

async function checkMxHost(resolver: DnsResolver, host: string, probes: ProbeOptions | undefined): Promise<MxHostCheck> {
  const [a, aaaa] = await Promise.all([resolver.a(host), resolver.aaaa(host)]);
  const addresses = [...a.records, ...aaaa.records];
  const resolvable = addresses.length ? "ok" : [a.status, aaaa.status].every((s) => s === "nxdomain" || s === "nodata") ? "none" : "failed";
  const check: MxHostCheck = { host, resolvable, addresses };
  if (resolvable !== "ok" || !probes || probes.smtpPort === 0) return check;
  const probe = await probeSmtp(resolver, host, probes);
  return { ...check, tls: { outcome: probe.outcome, reason: probe.reason, certificate: probe.certificate } };
}

/** DNSKEY from the domain up to its registrable domain (at most 8 names): the nearest signed zone apex. */
async function checkDnssec(resolver: DnsResolver, domain: string): Promise<ExtraResult> {
  const labels = domain.split(".");
  const stop = organizationalDomain(domain).split(".").length;
  const names = labels.map((_, i) => labels.slice(i).join(".")).filter((n) => n.split(".").length >= Math.min(stop, labels.length)).slice(0, 8);
  const answers = await Promise.all(names.map((n) => resolver.dnskey(n)));
  const signedAt = answers.findIndex((a) => a.keys > 0);
  if (signedAt < 0 && answers.length && answers.every((a) => isTemporaryFailure(a.status))) return uncheckedExtra(`the DNSKEY records of ${names[0]}`, answers[0]!.status);
  return evaluateDnssec(domain, {
    zone: signedAt >= 0 ? names[signedAt]! : null,
    authenticated: signedAt >= 0 && answers[signedAt]!.authenticated,
    failed: answers.some((a) => isTemporaryFailure(a.status)),
  });
}

/** Findings for a fetch that did not give a file: unreachable (error) or not checked (warning). */
function fetchFailure(prefix: "mta_sts.policy" | "bimi.svg", what: string, url: string, failure: ProbeFailure, now: Date): Finding[] {
  switch (failure.stage) {
    case "address":
    case "timeout":
      return [finding("warning", `${prefix}_not_checked`, `The ${what} at ${url} could not be checked: ${failure.message}.`, "Check again later; if it persists, make sure the address answers over HTTPS from the internet.")];
    case "tls":
      return [
        finding("error", `${prefix}_certificate`, `The ${what} at ${url} is served with a certificate that does not verify: ${failure.message}.`, `Serve ${new URL(url).hostname} with a certificate from a public authority that names it (for example Let's Encrypt).`),
        ...(failure.certificate ? certificateFindings(prefix.split(".")[0]!, new URL(url).hostname, failure.certificate, now).filter((f) => f.code.endsWith("expired") || f.code.endsWith("expiring")) : []),
      ];
    case "size":
      return [finding("error", `${prefix}_too_large`, `The ${what} at ${url} is too large: ${failure.message}.`, "Make the file smaller.")];
    default:
      return [finding("error", `${prefix}_unreachable`, `The ${what} at ${url} could not be fetched: ${failure.message}.`, `Publish the file at ${url}, served over HTTPS with a valid certificate.`)];
  }
}

/** With probes: the MTA-STS policy file fetched and checked against the MX hosts. */
async function checkMtaStsPolicy(resolver: DnsResolver, domain: string, result: ExtraResult, mxHosts: string[], now: Date, probes: ProbeOptions | undefined): Promise<ExtraResult> {
  if (!probes || result.status === "missing") return result;
  const url = mtaStsPolicyUrl(domain);
  const fetched = await httpsGet(resolver, url, MTA_STS_MAX_BYTES, probes);
  if (!fetched.ok) return withFindings(result, fetchFailure("mta_sts.policy", "MTA-STS policy file", url, fetched, now), { policyUrl: url, policy: null });
  const extra: Finding[] = [];
  if (fetched.status >= 300 && fetched.status < 400) {
    extra.push(finding("error", "mta_sts.policy_redirect", `${url} answers with a redirect (HTTP ${fetched.status}); senders do not follow redirects for the policy file.`, `Serve the file directly at ${url} with HTTP 200.`));
  } else if (fetched.status !== 200) {
    extra.push(finding("error", "mta_sts.policy_http_status", `${url} answers HTTP ${fetched.status} instead of the policy file.`, `Publish the policy file at ${url} (HTTP 200, text/plain).`));
  }
  if (extra.length) return withFindings(result, extra, { policyUrl: url, policy: null });
  if (!/^text\/plain\b/i.test(fetched.headers["content-type"] ?? "")) {
    extra.push(finding("warning", "mta_sts.policy_content_type", `The policy file is served as "${fetched.headers["content-type"] ?? "no content type"}" instead of text/plain; some senders ignore it.`, "Serve mta-sts.txt with Content-Type: text/plain."));
  }
  if (fetched.certificate) extra.push(...certificateFindings("mta_sts", `mta-sts.${domain}`, fetched.certificate, now));
  const evaluated = evaluateMtaStsPolicy(domain, fetched.body.toString("utf8"), mxHosts);
  extra.push(...evaluated.findings);
  return withFindings(result, extra, { policyUrl: url, policy: evaluated.policy });
}

/** With probes: the BIMI logo fetched and checked against the SVG Tiny PS essentials. */
async function checkBimiLogo(resolver: DnsResolver, result: ExtraResult, now: Date, probes: ProbeOptions | undefined): Promise<ExtraResult> {
  const logo = typeof result.details?.logo === "string" ? result.details.logo : "";
  if (!probes || result.status !== "configured" || !logo) return result;
  const fetched = await httpsGet(resolver, logo, BIMI_SVG_MAX_BYTES, probes);
  if (!fetched.ok) return withFindings(result, fetchFailure("bimi.svg", "BIMI logo", logo, fetched, now), { svgChecked: false });
  if (fetched.status !== 200) return withFindings(result, [finding("error", "bimi.svg_unreachable", `${logo} answers HTTP ${fetched.status} instead of the logo.`, `Publish the SVG logo at ${logo} (HTTP 200).`)], { svgChecked: false });
  return withFindings(result, checkBimiSvg(logo, fetched.body), { svgChecked: true, svgBytes: fetched.body.length });
}
