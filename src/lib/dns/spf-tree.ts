/**
 * The SPF include tree: resolves include:/redirect= recursively (siblings in parallel, so the
 * time taken is about depth × latency), and the a/mx/exists targets to count void lookups;
 * then summarises the tree into RFC 7208's limits: at most 10 terms that cost a DNS lookup,
 * at most 2 void lookups, at most 10 MX names per mx, no loops.
 *
 * The walk does no I/O of its own: the lookups are passed in.
 */
import { hasMacro, isSpfRecord, parseSpf, type ParsedSpf } from "./spf";
import { finding, type Finding, isEmptyAnswer, isTemporaryFailure, type LookupResult, type LookupStatus, type MxAnswer, type TxtLookup } from "./types";

export const SPF_LOOKUP_LIMIT = 10;
export const SPF_VOID_LIMIT = 2;
export const SPF_MX_LIMIT = 10;
/** a walk stops descending here; the lookup limit is exceeded long before */
const MAX_DEPTH = 12;
const MAX_NODES = 60;

export interface SpfLookups {
  txt(name: string): Promise<TxtLookup>;
  a(name: string): Promise<LookupResult<string>>;
  aaaa(name: string): Promise<LookupResult<string>>;
  mx(name: string): Promise<LookupResult<MxAnswer>>;
}

export interface SpfNode {
  domain: string;
  via: "root" | "include" | "redirect";
  /** the term that led here, e.g. "include:_spf.google.com" */
  term?: string;
  lookupStatus: LookupStatus;
  record: string | null;
  /** terms in this record that cost a DNS lookup */
  lookups: number;
  /** this record's lookups plus those of everything it includes */
  totalLookups: number;
  /** a/mx/exists/include targets of this record that did not exist or had no records */
  voidLookups: number;
  findings: Finding[];
  children: SpfNode[];
}

interface WalkState {
  nodes: number;
}

/** Walks the SPF tree from `domain`. */
export function walkSpf(domain: string, lookups: SpfLookups): Promise<SpfNode> {
  return walk(domain, "root", undefined, [], lookups, { nodes: 0 });
}

async function walk(domain: string, via: SpfNode["via"], term: string | undefined, ancestors: string[], lookups: SpfLookups, state: WalkState): Promise<SpfNode> {
  state.nodes++;
  const node: SpfNode = { domain, via, term, lookupStatus: "ok", record: null, lookups: 0, totalLookups: 0, voidLookups: 0, findings: [], children: [] };
  const txt = await lookups.txt(domain);
  node.lookupStatus = txt.status;
  const records = txt.records.map((r) => r.text).filter(isSpfRecord);
  const where = via === "root" ? domain : `${domain} (reached through ${term})`;
  if (isTemporaryFailure(txt.status)) {
    node.findings.push(finding("error", "spf.lookup_failed", `The DNS lookup of ${where} failed (${txt.status}); receivers treat this as a temporary error.`, "Try again in a few minutes; if it keeps failing, ask your DNS provider to check the domain's name servers."));
    return node;
  }
  if (!records.length) {
    if (via !== "root") {
      node.findings.push(finding("error", "spf.include_without_spf", `${term} points to ${domain}, which has no SPF record; receivers treat your whole SPF record as broken.`, `Check the spelling of "${term}" against your provider's instructions, or remove it if you no longer use that service.`));
    }
    return node;
  }
  if (records.length > 1) {
    node.record = records.join(" | ");
    node.findings.push(finding("error", "spf.multiple_records", `${where} has ${records.length} SPF records; receivers reject SPF for the domain when there is more than one.`, "Merge them into one record: keep one \"v=spf1 … -all\" and move every include:, ip4: and ip6: from the others into it."));
    return node;
  }
  node.record = records[0]!;
  const parsed: ParsedSpf = parseSpf(node.record, domain);
  node.lookups = parsed.lookupTerms;
  for (const f of parsed.findings) node.findings.push(via === "root" ? f : { ...f, message: `In ${where}: ${f.message}` });
  if (ancestors.length >= MAX_DEPTH) {
    // deeper than the lookup limit allows anyway: the count is already over 10
    node.findings.push(finding("info", "spf.too_deep", `Checking stopped at ${domain}: the includes go deeper than ${MAX_DEPTH} levels.`));
    return node;
  }
  const path = [...ancestors, domain];
  const tasks: Promise<void>[] = [];
  const descend = (target: string, how: "include" | "redirect", raw: string) => {
    if (path.includes(target.toLowerCase())) {
      node.findings.push(finding("error", "spf.loop", `${raw} in ${domain} leads back to ${target}, which is already being checked: an include loop. Receivers give up on your SPF record.`, `Remove "${raw}" from the record of ${domain}.`));
      return;
    }
    if (state.nodes >= MAX_NODES) return;
    tasks.push(
      walk(target.toLowerCase(), how, raw, path, lookups, state).then((child) => {
        node.children.push(child);
        if (isEmptyAnswer(child.lookupStatus)) node.voidLookups++;
      }),
    );
  };
  for (const mech of parsed.mechanisms) {
    const target = (mech.value ?? domain).replace(/\.$/, "");
    if (mech.name === "include" && mech.value && !hasMacro(mech.value)) descend(target, "include", mech.raw);
    else if ((mech.name === "a" || mech.name === "exists") && !hasMacro(target)) {
      tasks.push(
        Promise.all([lookups.a(target), mech.name === "a" ? lookups.aaaa(target) : Promise.resolve({ status: "nodata", records: [], ttl: 0 } as LookupResult<string>)]).then(([v4, v6]) => {
          if (isEmptyAnswer(v4.status) && isEmptyAnswer(v6.status)) node.voidLookups++;
        }),
      );
    } else if (mech.name === "mx" && !hasMacro(target)) {
      tasks.push(
        lookups.mx(target).then((mx) => {
          if (isEmptyAnswer(mx.status)) node.voidLookups++;
          const names = mx.records.filter((r) => r.exchange && r.exchange !== ".").length;
          if (names > SPF_MX_LIMIT) {
            node.findings.push(finding("error", "spf.mx_too_many", `"${mech.raw}" in ${where} covers ${names} mail servers; SPF allows at most ${SPF_MX_LIMIT}, so receivers reject the record.`, `Replace "${mech.raw}" with ip4:/ip6: entries for the servers that really send mail.`));
          }
        }),
      );
    } else if (mech.name === "ptr") {
      node.findings.push(finding("warning", "spf.ptr", `"${mech.raw}" in ${where} uses the ptr mechanism, which is deprecated: it is slow and many receivers ignore it.`, `Replace "${mech.raw}" with ip4:/ip6: or include: entries for your real senders.`));
    }
  }
  if (parsed.redirect && !parsed.all && !hasMacro(parsed.redirect)) descend(parsed.redirect.replace(/\.$/, ""), "redirect", `redirect=${parsed.redirect}`);
  await Promise.all(tasks);
  // keep the record's own order for display
  const order = (c: SpfNode) => parsed.terms.findIndex((t) => t.raw === c.term || (t.kind === "modifier" && `redirect=${t.value}` === c.term));
  node.children.sort((x, y) => order(x) - order(y));
  node.totalLookups = node.lookups + node.children.reduce((sum, c) => sum + c.totalLookups, 0);
  return node;
}

export type SpfStatus = "valid" | "missing" | "invalid" | "too many lookups";

export interface SpfSummary {
  status: SpfStatus;
  recordValue: string | null;
  lookupCount: number;
  voidLookups: number;
  findings: Finding[];
}

function collect(node: SpfNode, out: Finding[]) {
  out.push(...node.findings);
  for (const c of node.children) collect(c, out);
}

function voidTotal(node: SpfNode): number {
  return node.voidLookups + node.children.reduce((s, c) => s + voidTotal(c), 0);
}

/** The verdict over a walked tree: status, lookup counts and every finding, root first. */
export function summarizeSpf(root: SpfNode): SpfSummary {
  const lookupCount = root.totalLookups;
  const voidLookups = voidTotal(root);
  if (!root.record) {
    if (isTemporaryFailure(root.lookupStatus)) return { status: "invalid", recordValue: null, lookupCount, voidLookups, findings: root.findings };
    return {
      status: "missing",
      recordValue: null,
      lookupCount: 0,
      voidLookups: 0,
      findings: [
        finding(
          "error",
          "spf.missing",
          root.lookupStatus === "nxdomain" ? `${root.domain} does not exist in DNS, so it has no SPF record.` : `No SPF record found for ${root.domain}. Receivers cannot tell which servers may send mail for it.`,
          `Add a TXT record on ${root.domain} listing your email services, e.g. "v=spf1 include:_spf.google.com ~all" (use your provider's include), or "v=spf1 -all" if the domain sends no mail.`,
        ),
      ],
    };
  }
  const findings: Finding[] = [];
  collect(root, findings);
  const parsed = root.findings.some((f) => f.code === "spf.multiple_records") ? null : parseSpf(root.record, root.domain);
  if (parsed) {
    const all = parsed.all;
    if (all?.qualifier === "+") {
      findings.push(finding("warning", "spf.plus_all", `"${all.raw}" lets every server in the world send mail as ${root.domain}; the record protects nothing.`, 'Replace "+all" with "~all" (soft fail) or "-all" (fail) after listing your real senders.'));
    } else if (all?.qualifier === "?") {
      findings.push(finding("warning", "spf.neutral_all", `"?all" tells receivers to treat unknown servers as neutral, which gives your domain almost no protection.`, 'Replace "?all" with "~all" or "-all".'));
    } else if (!all && !parsed.redirect) {
      findings.push(finding("warning", "spf.no_all", "The record does not end with an all mechanism, so mail from servers it does not list is treated as neutral.", 'End the record with "~all" (soft fail) or "-all" (fail).'));
    }
  }
  const hasErrors = findings.some((f) => f.level === "error");
  if (voidLookups > SPF_VOID_LIMIT) {
    findings.push(finding("error", "spf.void_lookups", `${voidLookups} names in your SPF record (or the records it includes) do not exist or have no records; receivers give up after ${SPF_VOID_LIMIT}.`, "Remove the a:, mx: and include: entries that point to names that no longer exist."));
  }
  if (lookupCount > SPF_LOOKUP_LIMIT) {
    findings.push(finding("error", "spf.too_many_lookups", `Your SPF record needs ${lookupCount} DNS lookups; receivers stop at ${SPF_LOOKUP_LIMIT} and then treat SPF as failed for all your mail.`, "Remove include: entries for services you no longer use, or replace some include:s with the ip4:/ip6: addresses they stand for, until the count is 10 or less."));
  }
  const status: SpfStatus = hasErrors || voidLookups > SPF_VOID_LIMIT ? "invalid" : lookupCount > SPF_LOOKUP_LIMIT ? "too many lookups" : "valid";
  return { status, recordValue: root.record, lookupCount, voidLookups, findings };
}
