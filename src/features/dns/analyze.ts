/**
 * The full DNS analysis of one domain: DMARC (with inheritance and report authorisations),
 * the SPF tree, DKIM selectors and the extras, every independent query in parallel. The
 * checks themselves are the pure functions of src/lib/dns; this module only resolves.
 */
import { COMMON_DKIM_SELECTORS, evaluateDkim, type DkimKey, type DkimStatus } from "../../lib/dns/dkim";
import { authorizationName, evaluateDmarc, externalDestinations, organizationalDomain, type DmarcStatus, type ReportUri } from "../../lib/dns/dmarc";
import { evaluateBimi, evaluateMtaSts, evaluateMx, evaluateTlsRpt, type ExtraResult } from "../../lib/dns/extras";
import { overallStatus, type OverallStatus } from "../../lib/dns/overall";
import { summarizeSpf, walkSpf, type SpfNode, type SpfStatus } from "../../lib/dns/spf-tree";
import { type Finding, isTemporaryFailure, type TxtLookup } from "../../lib/dns/types";
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

export interface DnsAnalysis {
  domain: string;
  checkedAt: string;
  dmarc: RecordCheck<DmarcStatus, DmarcDetails>;
  spf: RecordCheck<SpfStatus, SpfDetails>;
  dkim: RecordCheck<DkimStatus, DkimDetails>;
  extras: { mx: ExtraResult; mtaSts: ExtraResult; tlsRpt: ExtraResult; bimi: ExtraResult };
  overallStatus: OverallStatus;
  /** a DNS server failed or timed out on a main lookup: statuses may be wrong, do not store them */
  incomplete: boolean;
}

export interface AnalyzeOptions {
  /** selectors the user typed */
  selectors?: string[];
  /** selectors seen in the organisation's DMARC reports */
  reportSelectors?: string[];
  now?: () => Date;
}

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
  const orgDomain = organizationalDomain(domain);
  const selectors = selectorsToTry(options);

  const dmarcTask = (async () => {
    // the organisational record is fetched alongside, so inheritance costs no extra round trip
    const [own, org] = await Promise.all([resolver.txt(`_dmarc.${domain}`), orgDomain !== domain ? resolver.txt(`_dmarc.${orgDomain}`) : Promise.resolve(undefined)]);
    const first = evaluateDmarc({ domain, own, organizational: org ? { domain: orgDomain, lookup: org } : undefined });
    if (!first.parsed) return { result: first, own };
    const policyDomain = first.inherited ? orgDomain : domain;
    const hosts = externalDestinations(first.parsed);
    if (!hosts.length) return { result: first, own };
    const authorizations: Record<string, TxtLookup> = {};
    await Promise.all(hosts.map(async (h) => void (authorizations[h] = await resolver.txt(authorizationName(policyDomain, h)))));
    return { result: evaluateDmarc({ domain, own, organizational: org ? { domain: orgDomain, lookup: org } : undefined, authorizations }), own };
  })();

  const spfTask = walkSpf(domain, resolver);

  const dkimTask = (async () => {
    const lookups = await Promise.all(selectors.map(async (s): Promise<[string, TxtLookup]> => [s, await resolver.txt(`${s}._domainkey.${domain}`)]));
    return evaluateDkim(domain, lookups);
  })();

  const extrasTask = Promise.all([resolver.mx(domain), resolver.txt(`_mta-sts.${domain}`), resolver.txt(`_smtp._tls.${domain}`), resolver.txt(`default._bimi.${domain}`)]);

  const [{ result: dmarc, own }, spfTree, dkim, [mx, mtaSts, tlsRpt, bimi]] = await Promise.all([dmarcTask, spfTask, dkimTask, extrasTask]);
  const spf = summarizeSpf(spfTree);
  const dmarcValid = dmarc.status === "reject" || dmarc.status === "quarantine" || dmarc.status === "none";
  const incomplete = isTemporaryFailure(own.status) || isTemporaryFailure(spfTree.lookupStatus);

  return {
    domain,
    checkedAt: (options.now?.() ?? new Date()).toISOString(),
    dmarc: check(dmarc.status, dmarcValid, dmarc.recordValue, dmarc.findings, {
      source: dmarc.source,
      inherited: dmarc.inherited,
      tags: dmarc.parsed?.tags ?? {},
      policy: dmarc.parsed?.policy ?? null,
      subdomainPolicy: dmarc.parsed?.subdomainPolicy ?? null,
      pct: dmarc.parsed?.pct ?? null,
      rua: dmarc.parsed?.rua ?? [],
      ruf: dmarc.parsed?.ruf ?? [],
    }),
    spf: check(spf.status, spf.status === "valid", spf.recordValue, spf.findings, { lookupCount: spf.lookupCount, lookupLimit: 10, voidLookups: spf.voidLookups, tree: spfTree.record ? spfTree : null }),
    dkim: check(dkim.status, dkim.status === "valid", dkim.recordValue, dkim.findings, {
      selectorsTried: dkim.selectorsTried,
      keys: dkim.keys.map(({ selector, record, status, keyType, bits, testing }) => ({ selector, record, status, keyType, bits, testing })),
    }),
    extras: {
      mx: evaluateMx(domain, mx),
      mtaSts: evaluateMtaSts(domain, mtaSts),
      tlsRpt: evaluateTlsRpt(domain, tlsRpt),
      bimi: evaluateBimi(domain, bimi, dmarc.status === "quarantine" || dmarc.status === "reject"),
    },
    overallStatus: overallStatus(dmarc.status, spf.status, dkim.status),
    incomplete,
  };
}
