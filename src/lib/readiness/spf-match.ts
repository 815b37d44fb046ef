/**
 * Does a sending IP match a domain's SPF record? Evaluates a walked SPF tree (src/lib/dns/
 * spf-tree.ts) for one address the way a receiver would (RFC 7208 §4.6, §5): mechanisms in
 * order, include: by its child's result, redirect= when nothing matched, a/mx resolved through
 * the lookups passed in. exists: and ptr depend on the receiver (macros, reverse DNS): reaching
 * one before a match gives "unknown" and says so, never a guess.
 */
import { isIP } from "node:net";
import type { SpfNode } from "../dns/spf-tree";
import { hasMacro, parseSpf, type SpfQualifier } from "../dns/spf";
import { isTemporaryFailure, type LookupResult, type MxAnswer } from "../dns/types";

export type SpfMatchResult = "pass" | "fail" | "softfail" | "neutral" | "none" | "permerror" | "temperror" | "unknown";

export interface SpfMatch {
  result: SpfMatchResult;
  /** the term that decided, as written (e.g. "ip4:198.51.100.0/24"); null when none did */
  mechanism: string | null;
  /** the domain whose record holds that term */
  domain: string | null;
  /** the term of the root record through which the address matched (e.g. "include:sendgrid.net") */
  topTerm: string | null;
  /** terms from the root record down to the deciding one */
  path: string[];
  /** why the result is unknown, permerror or temperror, in words */
  reason?: string;
}

export interface AddressLookups {
  a(name: string): Promise<LookupResult<string>>;
  aaaa(name: string): Promise<LookupResult<string>>;
  mx(name: string): Promise<LookupResult<MxAnswer>>;
}

const QUALIFIER_RESULT: Record<SpfQualifier, SpfMatchResult> = { "+": "pass", "-": "fail", "~": "softfail", "?": "neutral" };
const MAX_MX = 10;

/** An IPv4 or IPv6 address as a number, with its family's bit length; null when not an address. */
export function addressBits(ip: string): { value: bigint; bits: 32 | 128 } | null {
  const family = isIP(ip);
  if (family === 4) return { value: ip.split(".").reduce((n, part) => (n << 8n) | BigInt(Number(part)), 0n), bits: 32 };
  if (family !== 6) return null;
  let text = ip.toLowerCase();
  // an embedded IPv4 tail (::ffff:192.0.2.1) becomes two hextets
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (v4) {
    const n = addressBits(v4[1]!)!.value;
    text = text.slice(0, -v4[1]!.length) + `${(n >> 16n).toString(16)}:${(n & 0xffffn).toString(16)}`;
  }
  const [head, tail] = text.split("::");
  const left = head ? head.split(":") : [];
  const right = tail !== undefined ? (tail ? tail.split(":") : []) : [];
  const groups = tail !== undefined ? [...left, ...Array(8 - left.length - right.length).fill("0"), ...right] : left;
  return { value: groups.reduce((n, g) => (n << 16n) | BigInt(parseInt(g || "0", 16)), 0n), bits: 128 };
}

/** True when `ip` lies in `network`/`prefix` (both of the same family). */
export function inNetwork(ip: string, network: string, prefix?: number): boolean {
  const a = addressBits(ip);
  const b = addressBits(network);
  if (!a || !b || a.bits !== b.bits) return false;
  const len = BigInt(Math.max(0, Math.min(prefix ?? a.bits, a.bits)));
  const shift = BigInt(a.bits) - len;
  return a.value >> shift === b.value >> shift;
}

interface Matched {
  result: SpfMatchResult;
  mechanism: string | null;
  domain: string | null;
  path: string[];
  reason?: string;
}

/** Evaluates the SPF tree rooted at `root` for `ip`. Lookups are memoised by the caller if needed. */
export async function matchSpf(ip: string, root: SpfNode | null, lookups: AddressLookups): Promise<SpfMatch> {
  if (!root || !root.record) {
    return { result: root && isTemporaryFailure(root.lookupStatus) ? "temperror" : "none", mechanism: null, domain: root?.domain ?? null, topTerm: null, path: [], reason: root && isTemporaryFailure(root.lookupStatus) ? `The SPF lookup of ${root.domain} failed.` : undefined };
  }
  const m = await evaluate(ip, root, lookups, 0);
  return { ...m, topTerm: m.path[0] ?? null };
}

async function addressesOf(name: string, v6: boolean, lookups: AddressLookups): Promise<LookupResult<string>> {
  return v6 ? lookups.aaaa(name) : lookups.a(name);
}

async function evaluate(ip: string, node: SpfNode, lookups: AddressLookups, depth: number): Promise<Matched> {
  const at = (result: SpfMatchResult, mechanism: string | null, reason?: string): Matched => ({ result, mechanism, domain: node.domain, path: mechanism ? [mechanism] : [], reason });
  if (isTemporaryFailure(node.lookupStatus)) return at("temperror", null, `The SPF lookup of ${node.domain} failed.`);
  if (!node.record) return at(node.via === "root" ? "none" : "permerror", null, node.via === "root" ? undefined : `${node.term} points to ${node.domain}, which has no SPF record.`);
  if (node.findings.some((f) => f.code === "spf.multiple_records")) return at("permerror", null, `${node.domain} has more than one SPF record.`);
  if (depth > 12) return at("permerror", null, "The includes go too deep.");
  const parsed = parseSpf(node.record, node.domain);
  if (parsed.findings.some((f) => f.level === "error")) return at("permerror", null, `The SPF record of ${node.domain} has a syntax error.`);
  const bits = addressBits(ip);
  if (!bits) return at("unknown", null, `${ip} is not an IP address.`);
  const v6 = bits.bits === 128;
  for (const mech of parsed.mechanisms) {
    const hit = () => at(QUALIFIER_RESULT[mech.qualifier], mech.raw);
    switch (mech.name) {
      case "all":
        return hit();
      case "ip4":
        if (!v6 && mech.value && inNetwork(ip, mech.value, mech.cidr4)) return hit();
        break;
      case "ip6":
        if (v6 && mech.value && inNetwork(ip, mech.value, mech.cidr6)) return hit();
        break;
      case "a":
      case "mx": {
        const target = (mech.value ?? node.domain).replace(/\.$/, "");
        if (hasMacro(target)) return at("unknown", mech.raw, `"${mech.raw}" in ${node.domain} uses a macro that only the receiver can expand.`);
        const prefix = v6 ? mech.cidr6 : mech.cidr4;
        let hosts = [target];
        if (mech.name === "mx") {
          const mx = await lookups.mx(target);
          if (isTemporaryFailure(mx.status)) return at("temperror", mech.raw, `The MX lookup of ${target} failed.`);
          hosts = mx.records.filter((r) => r.exchange && r.exchange !== ".").slice(0, MAX_MX).map((r) => r.exchange.replace(/\.$/, ""));
        }
        for (const host of hosts) {
          const answer = await addressesOf(host, v6, lookups);
          if (isTemporaryFailure(answer.status)) return at("temperror", mech.raw, `The address lookup of ${host} failed.`);
          if (answer.records.some((addr) => inNetwork(ip, addr, prefix))) return hit();
        }
        break;
      }
      case "include": {
        const child = node.children.find((c) => c.via === "include" && c.term === mech.raw);
        if (!child) {
          if (mech.value && hasMacro(mech.value)) return at("unknown", mech.raw, `"${mech.raw}" uses a macro that only the receiver can expand.`);
          return at("unknown", mech.raw, `"${mech.raw}" was not followed (a loop, or too many includes).`);
        }
        const inner = await evaluate(ip, child, lookups, depth + 1);
        if (inner.result === "pass") return { result: QUALIFIER_RESULT[mech.qualifier], mechanism: inner.mechanism, domain: inner.domain, path: [mech.raw, ...inner.path] };
        if (inner.result === "none" || inner.result === "permerror") return { ...inner, result: "permerror", path: [mech.raw, ...inner.path], reason: inner.reason ?? `${mech.raw} is broken.` };
        if (inner.result === "temperror" || inner.result === "unknown") return { ...inner, path: [mech.raw, ...inner.path] };
        break;
      }
      case "exists":
        return at("unknown", mech.raw, `"${mech.raw}" in ${node.domain} decides per message at the receiver (exists:), so whether ${ip} matches cannot be told from here.`);
      case "ptr":
        return at("unknown", mech.raw, `"${mech.raw}" in ${node.domain} depends on the sender's reverse DNS as the receiver sees it.`);
    }
  }
  if (parsed.redirect) {
    const child = node.children.find((c) => c.via === "redirect");
    if (!child) return at("unknown", `redirect=${parsed.redirect}`, `redirect=${parsed.redirect} was not followed.`);
    const inner = await evaluate(ip, child, lookups, depth + 1);
    const term = `redirect=${parsed.redirect}`;
    return { ...inner, result: inner.result === "none" ? "permerror" : inner.result, path: [term, ...inner.path] };
  }
  return at("neutral", null);
}

/** Memoises a resolver's a/aaaa/mx for one evaluation of many addresses. */
export function memoLookups(lookups: AddressLookups): AddressLookups {
  const cache = new Map<string, Promise<LookupResult<any>>>();
  const memo = <T>(key: string, run: () => Promise<LookupResult<T>>): Promise<LookupResult<T>> => {
    let hit = cache.get(key);
    if (!hit) cache.set(key, (hit = run()));
    return hit as Promise<LookupResult<T>>;
  };
  return {
    a: (name) => memo(`a ${name}`, () => lookups.a(name)),
    aaaa: (name) => memo(`aaaa ${name}`, () => lookups.aaaa(name)),
    mx: (name) => memo(`mx ${name}`, () => lookups.mx(name)),
  };
}
