/**
 * Explain and fix, per source: one sending IP's report figures (what receivers saw) against the
 * domain's live DNS (what is published now): does the IP match the SPF record and through which
 * mechanism, which DKIM signatures it carries and whether each is aligned and its key published
 * and strong, which identifier fails alignment and why (relaxed or strict, subdomain, another
 * domain), and the one change that fixes it, in plain words. Pure: the caller resolves.
 */
import { getDomain } from "../tld";
import type { SenderMark } from "../senders";
import { serviceSetupOf } from "./services";
import type { SpfMatch } from "./spf-match";

export type AlignmentMode = "r" | "s";

/** One sending IP of a domain over the period, summed from its report records. */
export interface SourceFigures {
  ip: string;
  /** the known sending service (parsedmarc map), null when unrecognised */
  service: string | null;
  /** the base domain of its reverse DNS name */
  baseDomain: string | null;
  /** the Senders view's name and key of the sender it belongs to */
  sender: string;
  senderKey: string;
  mark: SenderMark | null;
  messages: number;
  /** messages passing DMARC */
  passed: number;
  spfAligned: number;
  dkimAligned: number;
  /** DKIM signatures seen (d=, s=, result) with their messages */
  dkim: { domain: string; selector: string | null; result: string; messages: number }[];
  /** SPF results seen (the MAIL FROM or HELO domain checked) with their messages */
  spf: { domain: string; result: string; messages: number }[];
}

/** A DKIM key as published now: null status when nothing is published at the name. */
export interface PublishedKey {
  status: "valid" | "weak key" | "revoked" | "invalid" | "missing" | "unknown";
  bits?: number;
}

export interface LiveDns {
  /** the domain in From: (the report's policy domain) */
  domain: string;
  adkim: AlignmentMode;
  aspf: AlignmentMode;
  /** the source's IP evaluated against the domain's SPF record now */
  spf: SpfMatch;
  /** published key of `selector._domainkey.domain`, looked up by the caller */
  key(selector: string, domain: string): PublishedKey;
}

export interface SignatureView {
  domain: string;
  selector: string | null;
  result: string;
  messages: number;
  aligned: boolean;
  /** why it is or is not aligned, in words */
  alignment: string;
  key: PublishedKey | null;
}

export interface SourceExplanation {
  ip: string;
  service: string | null;
  sender: string;
  senderKey: string;
  mark: SenderMark | null;
  /** a known service not marked not ours, or a source marked approved */
  yours: boolean;
  messages: number;
  passed: number;
  /** messages failing DMARC */
  failing: number;
  passRate: number;
  spf: {
    /** the domain SPF was checked for (MAIL FROM), most messages first; null when reports say nothing */
    domain: string | null;
    result: string | null;
    aligned: boolean;
    alignment: string;
    /** the IP against the domain's live SPF record */
    live: { result: string; mechanism: string | null; via: string[]; recordOf: string | null; words: string };
  };
  dkim: { signatures: SignatureView[]; aligned: boolean; words: string };
  /** identifiers that fail alignment for the failing mail */
  failsAlignment: ("spf" | "dkim")[];
  /** the one change that fixes it, in plain words */
  fix: string;
}

export const orgDomainOf = (name: string) => {
  const d = name.toLowerCase().replace(/\.$/, "");
  return getDomain(d, { allowPrivateDomains: false }) ?? d;
};

/** Whether `auth` aligns with `from` under `mode`, and why, in words. */
export function alignment(auth: string, from: string, mode: AlignmentMode, tag: "adkim" | "aspf"): { aligned: boolean; words: string } {
  const a = auth.toLowerCase().replace(/\.$/, "");
  const f = from.toLowerCase().replace(/\.$/, "");
  if (a === f) return { aligned: true, words: `${a} is exactly ${f}` };
  const sameOrg = orgDomainOf(a) === orgDomainOf(f);
  if (sameOrg && mode === "r") return { aligned: true, words: `${a} and ${f} share the organizational domain ${orgDomainOf(f)} (relaxed alignment)` };
  if (sameOrg) return { aligned: false, words: `${a} is in ${orgDomainOf(f)} but not exactly ${f}, and your DMARC record asks for strict alignment (${tag}=s)` };
  return { aligned: false, words: `${a} is not ${f} or a name under ${orgDomainOf(f)}` };
}

const percent = (part: number, total: number) => (total > 0 ? Math.round((part / total) * 1000) / 10 : 0);
const code = (s: string) => `\`${s}\``;
const n = (v: number) => v.toLocaleString("en-US");

/** A known service not marked not ours, or anything marked approved (the Tasks and Senders rule). */
export function isYours(s: Pick<SourceFigures, "service" | "mark">): boolean {
  return s.mark === "approved" || (!!s.service && s.mark !== "not_ours");
}

/** Sums signatures by d= and s=, keeping the result of most messages. */
function signaturesOf(s: SourceFigures): SourceFigures["dkim"] {
  const by = new Map<string, { domain: string; selector: string | null; results: Map<string, number>; messages: number }>();
  for (const d of s.dkim) {
    const key = `${d.domain.toLowerCase()}|${d.selector ?? ""}`;
    const g = by.get(key) ?? { domain: d.domain.toLowerCase(), selector: d.selector, results: new Map(), messages: 0 };
    g.messages += d.messages;
    g.results.set(d.result, (g.results.get(d.result) ?? 0) + d.messages);
    by.set(key, g);
  }
  return [...by.values()]
    .map((g) => ({ domain: g.domain, selector: g.selector, messages: g.messages, result: [...g.results.entries()].sort((a, b) => b[1] - a[1])[0]![0] }))
    .sort((a, b) => b.messages - a.messages || a.domain.localeCompare(b.domain));
}

function liveSpfWords(domain: string, ip: string, m: SpfMatch): string {
  if (m.result === "none") return `${domain} publishes no SPF record`;
  if (m.result === "pass") return `${ip} matches ${code(m.mechanism ?? "?")}${m.path.length > 1 ? ` (through ${m.path.slice(0, -1).map(code).join(" → ")})` : ""} in the SPF record of ${domain}`;
  if (m.result === "unknown" || m.result === "permerror" || m.result === "temperror") return m.reason ?? `SPF for ${ip} cannot be decided (${m.result})`;
  return `no mechanism in the SPF record of ${domain} matches ${ip}${m.mechanism ? ` (it ends at ${code(m.mechanism)}: ${m.result})` : ""}`;
}

/** Explains one source and says the one change that fixes it. */
export function explainSource(s: SourceFigures, live: LiveDns): SourceExplanation {
  const from = live.domain.toLowerCase();
  const yours = isYours(s);
  const failing = Math.max(0, s.messages - s.passed);
  const passRate = percent(s.passed, s.messages);
  const setup = serviceSetupOf(s.baseDomain);
  const name = s.service ?? (s.mark === "approved" ? s.sender : null);

  // SPF: the domain most of its mail was checked for
  const spfBy = new Map<string, { result: string; messages: number }>();
  for (const r of s.spf) {
    const key = r.domain.toLowerCase();
    const g = spfBy.get(key);
    if (!g || r.messages > g.messages) spfBy.set(key, { result: r.result, messages: (g?.messages ?? 0) + r.messages });
    else g.messages += r.messages;
  }
  const spfTop = [...spfBy.entries()].sort((a, b) => b[1].messages - a[1].messages)[0];
  const spfDomain = spfTop?.[0] ?? null;
  const spfAlign = spfDomain ? alignment(spfDomain, from, live.aspf, "aspf") : { aligned: false, words: "the reports name no SPF domain for it" };
  const spfPassAligned = !!spfTop && spfTop[1].result === "pass" && spfAlign.aligned;

  // DKIM: every signature, aligned or not, with its key as published now
  const signatures: SignatureView[] = signaturesOf(s).map((sig) => {
    const a = alignment(sig.domain, from, live.adkim, "adkim");
    return { ...sig, aligned: a.aligned, alignment: a.words, key: sig.selector && orgDomainOf(sig.domain) === orgDomainOf(from) ? live.key(sig.selector, sig.domain) : null };
  });
  const dkimPassAligned = signatures.some((sig) => sig.aligned && sig.result === "pass");
  const dkimWords = !signatures.length
    ? "the reports show no DKIM signature"
    : dkimPassAligned
      ? `signed and aligned (${signatures.filter((x) => x.aligned && x.result === "pass").map((x) => `d=${x.domain}${x.selector ? `, s=${x.selector}` : ""}`).join("; ")})`
      : signatures.map((x) => `d=${x.domain}${x.selector ? ` s=${x.selector}` : ""}: ${x.result}, ${x.alignment}`).join("; ");

  const failsAlignment: ("spf" | "dkim")[] = [];
  if (failing > 0) {
    if (!spfPassAligned || s.spfAligned < s.messages) failsAlignment.push("spf");
    if (!dkimPassAligned || s.dkimAligned < s.messages) failsAlignment.push("dkim");
  }

  const explanation: Omit<SourceExplanation, "fix"> = {
    ip: s.ip,
    service: s.service,
    sender: s.sender,
    senderKey: s.senderKey,
    mark: s.mark,
    yours,
    messages: s.messages,
    passed: s.passed,
    failing,
    passRate,
    spf: {
      domain: spfDomain,
      result: spfTop?.[1].result ?? null,
      aligned: spfAlign.aligned,
      alignment: spfAlign.words,
      live: { result: live.spf.result, mechanism: live.spf.mechanism, via: live.spf.path, recordOf: live.spf.domain, words: liveSpfWords(from, s.ip, live.spf) },
    },
    dkim: { signatures, aligned: dkimPassAligned, words: dkimWords },
    failsAlignment,
  };
  return { ...explanation, fix: fixFor(s, live, explanation, { name, setup, spfDomain, spfResult: spfTop?.[1].result ?? null, spfAligned: spfAlign.aligned }) };
}

function fixFor(
  s: SourceFigures,
  live: LiveDns,
  e: Omit<SourceExplanation, "fix">,
  x: { name: string | null; setup: ReturnType<typeof serviceSetupOf>; spfDomain: string | null; spfResult: string | null; spfAligned: boolean },
): string {
  const from = live.domain.toLowerCase();
  if (s.mark === "not_ours") {
    if (s.passed === 0) return "This source is not yours: no change, reject will stop it.";
    if (live.spf.result === "pass" && live.spf.topTerm) return `You marked this source as not yours, yet ${e.passRate}% of its mail passes: remove ${code(live.spf.topTerm)} from the SPF record of ${code(from)}${e.dkim.aligned ? " and retire the DKIM key it signs with" : ""}.`;
    return `You marked this source as not yours, yet ${e.passRate}% of its mail passes: retire the DKIM key it signs with for ${code(from)}.`;
  }
  if (e.failing === 0 || e.passRate >= 98) {
    if (e.failing === 0) return `No change needed: all its mail passes DMARC (${e.dkim.aligned ? "DKIM aligned" : "SPF aligned"}).`;
    return `No change needed: ${e.passRate}% of its mail passes DMARC; the ${n(e.failing)} failing message${e.failing === 1 ? "" : "s"} are usually forwarded mail.`;
  }
  if (!e.yours) {
    return s.passed > 0
      ? `Not recognized: if this server is yours, have it sign with DKIM for ${code(from)}; otherwise this source is not yours: no change, reject will stop it.`
      : "This source is not yours: no change, reject will stop it. (If it is yours after all, mark it approved on its sender page to see how to set it up.)";
  }
  const who = x.name ?? "this sender";
  const signed = e.dkim.signatures;

  // 1. an aligned signature whose key is missing, revoked, weak or wrong
  for (const sig of signed.filter((g) => g.aligned && g.result !== "pass" && g.selector)) {
    const at = `${sig.selector}._domainkey.${sig.domain}`;
    const status = sig.key?.status ?? "unknown";
    if (status === "missing") return `Publish the DKIM key for selector ${code(sig.selector!)} that ${who} shows you, as a TXT (or CNAME) record at ${code(at)}.`;
    if (status === "revoked") return `The key at ${code(at)} is revoked (empty p=): publish the current key for selector ${code(sig.selector!)} that ${who} shows you.`;
    if (status === "invalid") return `The key at ${code(at)} cannot be read: copy it again exactly as ${who} shows it for selector ${code(sig.selector!)}.`;
    if (status === "weak key") return `The key at ${code(at)} is too short (${sig.key?.bits ?? "?"} bits): create a 2048-bit key in ${who}, publish it under a new selector and switch signing to it.`;
    return `Signatures with selector ${code(sig.selector!)} fail although a key is published at ${code(at)}: check that it is the key ${who} signs with now (copy it again).`;
  }
  // 2. signed with a name of the domain, but strict alignment refuses it
  const strictDkim = signed.find((g) => !g.aligned && g.result === "pass" && live.adkim === "s" && orgDomainOf(g.domain) === orgDomainOf(from));
  if (strictDkim) return `${who} signs with d=${strictDkim.domain}, which strict alignment (adkim=s) refuses for ${from}: have it sign with d=${from}, or change adkim=s to adkim=r in the record at ${code(`_dmarc.${from}`)}.`;
  const strictSpf = x.spfDomain && !x.spfAligned && live.aspf === "s" && orgDomainOf(x.spfDomain) === orgDomainOf(from);
  if (strictSpf && x.spfResult === "pass") return `SPF passes for ${x.spfDomain}, which strict alignment (aspf=s) refuses for ${from}: change aspf=s to aspf=r in the record at ${code(`_dmarc.${from}`)}, or send with a bounce address at ${from}.`;
  // 3. its bounce address is at the domain, but the domain's SPF does not list it
  if (x.spfDomain && x.spfAligned && x.spfResult !== "pass") {
    if (live.spf.result === "pass" && x.spfDomain === from) return `Nothing to change in SPF: the record of ${code(from)} now authorizes ${s.ip} through ${code(live.spf.topTerm ?? live.spf.mechanism ?? "?")}; the failures were reported before that change.`;
    const add = x.setup.spfInclude ? `include:${x.setup.spfInclude}` : s.ip.includes(":") ? `ip6:${s.ip}` : `ip4:${s.ip}`;
    return `Add ${code(add)} to the SPF record of ${code(x.spfDomain)}.`;
  }
  // 4. nothing aligned: the service signs with its own domain → custom-domain DKIM
  if (s.service) {
    const selector = x.setup.dkimSelectors?.[0];
    const where = x.setup.dkimWhere ? ` (in ${x.setup.dkimWhere})` : "";
    return selector
      ? `Publish the DKIM key for selector ${code(selector)} that ${s.service} shows you, and turn on custom-domain signing for ${from}${where}.`
      : `Turn on custom-domain DKIM signing for ${from} in ${s.service}${where} and publish the DKIM key it shows you.`;
  }
  const add = s.ip.includes(":") ? `ip6:${s.ip}` : `ip4:${s.ip}`;
  return `Have this server sign its mail with DKIM for ${from} and publish its key; or add ${code(add)} to the SPF record of ${code(from)} and send with a bounce address at ${from}.`;
}
