import type { AppDeps } from "../deps";
import { cidrContains, formatAddress, parseAddress, parseCidr, type AddressBytes, type Cidr } from "../lib/net/address";

/**
 * The client's address, for rate limits.
 *
 * Without proxy flags it is the socket's peer. Behind a reverse proxy the client writes the
 * left of X-Forwarded-For and every proxy appends the address it saw, so only entries written
 * by proxies of the operator's own can be believed:
 * - `--trust-proxy`: one proxy sits in front; the right-most entry is the client.
 * - `--trusted-proxies CIDR,…`: X-Forwarded-For counts only when the socket peer is one of
 *   them (or --trust-proxy is set); entries are read from the right, skipping trusted proxies,
 *   and the first other one is the client.
 * An entry that is not an IP address stops the walk: what lies left of it cannot be believed,
 * so the last believed hop is used.
 */
export function clientAddress(deps: Pick<AppDeps, "server" | "config">, request: Request): string {
  const peerText = deps.server?.requestIP(request)?.address;
  const peer = peerText ? parseAddress(peerText) : null;
  const trusted = trustedProxies(deps.config.trustedProxies);
  const peerTrusted = deps.config.trustProxy || (!!peer && trusted.some((range) => cidrContains(range, peer)));
  const forwarded = peerTrusted ? request.headers.get("x-forwarded-for") : null;
  let client: AddressBytes | null = peer;
  if (forwarded) {
    const hops = forwarded.split(",").slice(-MAX_FORWARDED_HOPS);
    for (let i = hops.length - 1; i >= 0; i--) {
      const hop = parseForwardedHop(hops[i]!);
      if (!hop) break;
      client = hop;
      if (!trusted.some((range) => cidrContains(range, hop))) break;
    }
  }
  return client ? formatAddress(client) : (peerText ?? "unknown");
}

/** Entries of X-Forwarded-For read at most; a longer chain is cut from the left. */
export const MAX_FORWARDED_HOPS = 20;

/** "203.0.113.7", "203.0.113.7:51234", "[2001:db8::1]:443" or "2001:db8::1" → address. */
function parseForwardedHop(text: string): AddressBytes | null {
  const s = text.trim();
  const withPort = /^(\d{1,3}(?:\.\d{1,3}){3}):\d{1,5}$/.exec(s) ?? /^\[([^\]]+)\](?::\d{1,5})?$/.exec(s);
  return parseAddress(withPort ? withPort[1]! : s);
}

const parsedLists = new WeakMap<object, Cidr[]>();

function trustedProxies(value: unknown): Cidr[] {
  if (!Array.isArray(value) || !value.length) return [];
  let ranges = parsedLists.get(value);
  if (!ranges) {
    ranges = value.map((entry) => parseCidr(String(entry))).filter((range): range is Cidr => !!range);
    parsedLists.set(value, ranges);
  }
  return ranges;
}

/** The flag table's check for --trusted-proxies: every entry an address or CIDR range. */
export function trustedProxiesProblem(value: string[]): string | undefined {
  const bad = value.find((entry) => !parseCidr(entry));
  return bad === undefined ? undefined : `"${bad}" is not an IP address or CIDR range such as 10.0.0.0/8`;
}
