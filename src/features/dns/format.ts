/** The analysis as readable text, for `dmarcwarden check`. */
import type { Finding } from "../../lib/dns/types";
import type { SpfNode } from "../../lib/dns/spf-tree";
import type { MtaStsPolicy } from "../../lib/dns/mta-sts";
import type { MxHostCheck } from "../../lib/dns/transport";
import { NOT_ANSWERED, type DnsAnalysis } from "./analyze";

const TLS_WORDS: Record<NonNullable<MxHostCheck["tls"]>["outcome"], string> = { starttls: "STARTTLS", no_starttls: "no STARTTLS", failed: "STARTTLS failed", unchecked: "STARTTLS not checked" };

const MARK: Record<Finding["level"], string> = { error: "✗", warning: "!", info: "·" };

function findingLines(findings: Finding[], indent = "    "): string[] {
  return findings.flatMap((f) => [`${indent}${MARK[f.level]} ${f.message}`, ...(f.fix ? [`${indent}  → ${f.fix}`] : [])]);
}

function treeLines(node: SpfNode, depth = 0): string[] {
  const label = depth === 0 ? node.domain : `${node.term}`;
  const own = `${"  ".repeat(depth + 2)}${label}  (${node.totalLookups} lookup${node.totalLookups === 1 ? "" : "s"}${node.record ? "" : `, ${node.lookupStatus === "ok" ? "no SPF record" : node.lookupStatus}`})`;
  return [own, ...node.children.flatMap((c) => treeLines(c, depth + 1))];
}

/** A status as the terminal shows it: "unchecked" is said in words. */
const word = (status: string) => (status === "unchecked" ? NOT_ANSWERED : status);

export function formatAnalysis(a: DnsAnalysis): string {
  const out: string[] = [`${a.domain}: ${a.overallStatus === "unchecked" ? NOT_ANSWERED : a.overallStatus.toUpperCase()}`, ""];
  out.push(`${"DMARC".padEnd(9)}${word(a.dmarc.status)}${a.dmarc.details.inherited ? ` (inherited from ${a.dmarc.details.source})` : ""}`);
  if (a.dmarc.recordValue) out.push(`    ${a.dmarc.recordValue}`);
  // older stored analyses have no tree walk
  if (a.dmarc.details.organizationalDomain && a.dmarc.status !== "unchecked") out.push(`    organizational domain: ${a.dmarc.details.organizationalDomain} (DNS tree walk)`);
  out.push(...findingLines(a.dmarc.findings), "");
  out.push(`${"SPF".padEnd(9)}${word(a.spf.status)}${a.spf.status === "unchecked" ? "" : `  (${a.spf.details.lookupCount}/${a.spf.details.lookupLimit} DNS lookups, ${a.spf.details.voidLookups} void)`}`);
  if (a.spf.recordValue) out.push(`    ${a.spf.recordValue}`);
  if (a.spf.details.tree && a.spf.details.tree.children.length) out.push("    include tree:", ...treeLines(a.spf.details.tree));
  out.push(...findingLines(a.spf.findings), "");
  out.push(`${"DKIM".padEnd(9)}${word(a.dkim.status)}  (${a.dkim.details.selectorsTried.length} selectors tried)`);
  for (const k of a.dkim.details.keys) out.push(`    ${k.selector}: ${k.status}${k.keyType ? `, ${k.keyType}` : ""}${k.bits ? ` ${k.bits} bits` : ""}`);
  out.push(...findingLines(a.dkim.findings), "");
  const extras: [string, DnsAnalysis["extras"]["mx"]][] = [
    ["MX", a.extras.mx],
    ["MTA-STS", a.extras.mtaSts],
    ["TLS-RPT", a.extras.tlsRpt],
    ["BIMI", a.extras.bimi],
    ["DNSSEC", a.extras.dnssec],
  ];
  for (const [name, e] of extras) {
    if (!e) continue;
    out.push(`${name.padEnd(9)}${word(e.status)}${e.recordValue ? `  ${e.recordValue}` : ""}`);
    if (name === "MX") for (const h of (e.details?.hostChecks as MxHostCheck[] | undefined) ?? []) out.push(`    ${h.host}: ${h.addresses.join(", ") || "no address"}${h.tls ? `, ${TLS_WORDS[h.tls.outcome]}` : ""}`);
    const policy = e.details?.policy as MtaStsPolicy | null | undefined;
    if (name === "MTA-STS" && policy) out.push(`    policy: mode ${policy.mode ?? "?"}, max_age ${policy.maxAge ?? "?"}, mx ${policy.mx.join(" ") || "none"}`);
    out.push(...findingLines(e.findings));
  }
  return out.join("\n");
}
