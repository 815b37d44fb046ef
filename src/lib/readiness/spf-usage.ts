/**
 * SPF that is used: the terms of a domain's SPF record crossed with the sources of its reports.
 * A term authorised mail when a reported IP matches the record through it (the root record's
 * term the match went through, src/lib/readiness/spf-match.ts); a term that authorised no
 * reported mail in the period is a candidate to remove, and its DNS lookups are what removing it
 * saves. When the record needs more than 10 lookups, a rewrite: first without the unused terms,
 * then, only if still over, replacing the heaviest used includes by the addresses they publish
 * today — with its cost said, never done silently.
 */
import { parseSpf } from "../dns/spf";
import { SPF_LOOKUP_LIMIT, type SpfNode } from "../dns/spf-tree";
import type { SpfMatch } from "./spf-match";

export interface SpfTermUsage {
  /** the term as written in the root record */
  term: string;
  kind: string;
  /** DNS lookups it costs, its includes' included */
  lookups: number;
  /** reported messages it authorised in the period */
  messages: number;
  /** reported IPs it authorised */
  sources: number;
}

export interface FlattenOption {
  term: string;
  lookupsSaved: number;
  /** the ip4:/ip6: terms it stands for today; null when it cannot be written out (a, mx, exists, ptr or macros inside) */
  addresses: string[] | null;
  cost: string;
}

export interface SpfUsage {
  domain: string;
  record: string | null;
  lookups: number;
  limit: number;
  terms: SpfTermUsage[];
  /** terms that authorised no reported mail in the period (candidates to remove) */
  unused: string[];
  /** lookups saved by removing every unused term */
  lookupsSaved: number;
  /** a record within the limit when the current one is over it; null when it is within */
  rewrite: { record: string; lookups: number; removed: string[]; flatten: FlattenOption[]; words: string } | null;
  words: string;
}

export interface MatchedSource {
  ip: string;
  messages: number;
  match: SpfMatch;
}

function termCost(node: SpfNode, raw: string, name: string): number {
  if (name === "include") return 1 + (node.children.find((c) => c.via === "include" && c.term === raw)?.totalLookups ?? 0);
  if (name === "redirect") return 1 + (node.children.find((c) => c.via === "redirect")?.totalLookups ?? 0);
  return ["a", "mx", "exists", "ptr"].includes(name) ? 1 : 0;
}

/** The ip4:/ip6: terms a subtree publishes, or null when it holds anything that cannot be written out. */
function addressesOf(node: SpfNode | undefined): string[] | null {
  if (!node?.record) return null;
  const parsed = parseSpf(node.record, node.domain);
  const out: string[] = [];
  for (const m of parsed.mechanisms) {
    if (m.name === "ip4" || m.name === "ip6") out.push(`${m.name}:${m.value}${m.name === "ip4" && m.cidr4 !== undefined ? `/${m.cidr4}` : ""}${m.name === "ip6" && m.cidr6 !== undefined ? `/${m.cidr6}` : ""}`);
    else if (m.name === "include") {
      const inner = addressesOf(node.children.find((c) => c.via === "include" && c.term === m.raw));
      if (!inner) return null;
      out.push(...inner);
    } else if (m.name !== "all") return null;
  }
  if (parsed.redirect) return null;
  return out;
}

const plural = (n: number, one: string) => `${n} ${one}${n === 1 ? "" : "s"}`;

export function spfUsage(root: SpfNode | null, sources: MatchedSource[], days: number): SpfUsage {
  const domain = root?.domain ?? "";
  if (!root?.record) return { domain, record: null, lookups: 0, limit: SPF_LOOKUP_LIMIT, terms: [], unused: [], lookupsSaved: 0, rewrite: null, words: "There is no SPF record to compare with the reports." };
  const parsed = parseSpf(root.record, domain);
  const terms: SpfTermUsage[] = parsed.terms
    .filter((t) => t.kind === "mechanism" || t.name === "redirect")
    .map((t) => ({ term: t.raw, kind: t.name, lookups: termCost(root, t.raw, t.name), messages: 0, sources: 0 }));
  for (const s of sources) {
    if (s.match.result !== "pass" || !s.match.topTerm) continue;
    const t = terms.find((x) => x.term === s.match.topTerm);
    if (!t) continue;
    t.messages += s.messages;
    t.sources++;
  }
  const unused = terms.filter((t) => t.kind !== "all" && t.messages === 0).map((t) => t.term);
  const lookupsSaved = terms.filter((t) => unused.includes(t.term)).reduce((s, t) => s + t.lookups, 0);
  const lookups = root.totalLookups;
  let rewrite: SpfUsage["rewrite"] = null;
  if (lookups > SPF_LOOKUP_LIMIT) {
    const removable = terms.filter((t) => unused.includes(t.term) && t.kind !== "redirect");
    const removed = removable.map((t) => t.term);
    let after = lookups - removable.reduce((s, t) => s + t.lookups, 0);
    const flatten: FlattenOption[] = [];
    const kept = parsed.terms.filter((t) => !removed.includes(t.raw));
    let record = ["v=spf1", ...kept.map((t) => t.raw)].join(" ");
    if (after > SPF_LOOKUP_LIMIT) {
      for (const t of terms.filter((x) => x.kind === "include" && !removed.includes(x.term)).sort((a, b) => b.lookups - a.lookups)) {
        if (after <= SPF_LOOKUP_LIMIT) break;
        const child = root.children.find((c) => c.via === "include" && c.term === t.term);
        const addresses = addressesOf(child);
        const target = t.term.replace(/^[+~?-]?include:/, "");
        flatten.push({
          term: t.term,
          lookupsSaved: t.lookups,
          addresses,
          cost: addresses
            ? `Replacing ${t.term} by its ${plural(addresses.length, "address range")} saves ${plural(t.lookups, "lookup")}, but ${target} can change them at any time without telling you: you must re-check them and update the record yourself, or that service's mail starts failing SPF.`
            : `${t.term} uses a, mx, exists or macros inside, so it cannot be written out as addresses; ask the provider for a lighter include or move that service to a subdomain.`,
        });
        if (addresses) {
          after -= t.lookups;
          record = record.replace(t.term, addresses.join(" "));
        }
      }
    }
    const words = removed.length
      ? `Removing ${removed.map((r) => `"${r}"`).join(", ")} (no reported mail in ${days} days) brings the record from ${lookups} to ${lookups - lookupsSaved} lookups${flatten.length ? "; the rest needs the trade-off below" : ""}.`
      : `Every term authorized mail in ${days} days, so nothing can simply be removed${flatten.length ? "; the options below trade lookups for upkeep" : ""}.`;
    rewrite = { record, lookups: after, removed, flatten, words };
  }
  const words = unused.length
    ? `${plural(unused.length, "term")} authorized no reported mail in the last ${days} days${lookupsSaved ? `; removing ${unused.length === 1 ? "it" : "them"} saves ${plural(lookupsSaved, "DNS lookup")}` : ""}. A service that sends rarely (a yearly mailing) may not show in ${days} days: check before removing.`
    : `Every term of the record authorized reported mail in the last ${days} days.`;
  return { domain, record: root.record, lookups, limit: SPF_LOOKUP_LIMIT, terms, unused, lookupsSaved, rewrite, words };
}
