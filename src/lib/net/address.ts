/**
 * IP addresses and CIDR ranges: strict parsing, membership, and which addresses are public.
 *
 * Parsing is deliberately strict (dotted-quad IPv4 with no leading zeros, RFC 4291 IPv6):
 * forms such as "127.1", "0x7f.0.0.1" or "2130706433", which some resolvers read as addresses,
 * are not addresses here, so they can only reach a connection through a DNS lookup whose
 * answer is checked again.
 */

/** An address as 4 (IPv4) or 16 (IPv6) bytes. */
export type AddressBytes = Uint8Array;

export interface Cidr {
  bytes: AddressBytes;
  prefix: number;
}

/**
 * A dotted-quad IPv4 address as an unsigned 32-bit number, or -1 unless it is four decimal parts
 * 0-255 without leading zeros. One pass over the characters, nothing allocated: ingest locates
 * every source address through it (src/lib/mmdb-ipv4.ts).
 */
export function ipv4Number(text: string): number {
  const n = text.length;
  if (n < 7 || n > 15) return -1;
  let value = 0;
  let part = 0;
  let digits = 0;
  let parts = 0;
  for (let i = 0; i <= n; i++) {
    const c = i < n ? text.charCodeAt(i) : 46;
    if (c === 46) {
      if (digits === 0 || part > 255) return -1;
      value = value * 256 + part;
      parts++;
      part = 0;
      digits = 0;
    } else if (c >= 48 && c <= 57) {
      if (digits === 1 && part === 0) return -1; // a leading zero
      part = part * 10 + (c - 48);
      if (++digits > 3) return -1;
    } else return -1;
  }
  return parts === 4 ? value : -1;
}

function parseIpv4(text: string): AddressBytes | null {
  const n = ipv4Number(text);
  return n < 0 ? null : Uint8Array.of(n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255);
}

function parseIpv6(text: string): AddressBytes | null {
  let s = text;
  const zone = s.indexOf("%");
  if (zone >= 0) s = s.slice(0, zone);
  if (!/^[0-9a-f:.]+$/i.test(s) || s.length > 45) return null;
  let tail: number[] = [];
  const lastColon = s.lastIndexOf(":");
  if (s.includes(".")) {
    const v4 = parseIpv4(s.slice(lastColon + 1));
    if (!v4) return null;
    tail = [(v4[0]! << 8) | v4[1]!, (v4[2]! << 8) | v4[3]!];
    // drop the dotted tail but keep a "::" that precedes it ("::ffff:1.2.3.4" → "::ffff", "::1.2.3.4" → "::")
    const before = s.slice(0, lastColon + 1);
    s = before.endsWith("::") ? before : before.slice(0, -1);
  }
  const halves = s.split("::");
  if (halves.length > 2) return null;
  const group = (part: string) => (part === "" ? [] : part.split(":"));
  const head = group(halves[0]!);
  const rest = halves.length === 2 ? group(halves[1]!) : [];
  if ([...head, ...rest].some((g) => !/^[0-9a-f]{1,4}$/i.test(g))) return null;
  const wanted = 8 - tail.length;
  const given = head.length + rest.length;
  if (halves.length === 1 ? given !== wanted : given >= wanted) return null;
  const words = [...head.map((g) => parseInt(g, 16)), ...new Array(wanted - given).fill(0), ...rest.map((g) => parseInt(g, 16)), ...tail];
  const bytes = new Uint8Array(16);
  words.forEach((w, i) => {
    bytes[2 * i] = w >> 8;
    bytes[2 * i + 1] = w & 0xff;
  });
  return bytes;
}

/** "192.0.2.1" or "2001:db8::1" (brackets and a zone id allowed) → bytes; null when not an address. */
export function parseAddress(text: string): AddressBytes | null {
  const s = text.trim().replace(/^\[(.*)\]$/, "$1");
  if (!s) return null;
  return s.includes(":") ? parseIpv6(s) : parseIpv4(s);
}

/** The IPv4 address inside an IPv4-mapped IPv6 address (::ffff:a.b.c.d), else null. */
function mappedIpv4(bytes: AddressBytes): AddressBytes | null {
  if (bytes.length !== 16) return null;
  for (let i = 0; i < 10; i++) if (bytes[i] !== 0) return null;
  if (bytes[10] !== 0xff || bytes[11] !== 0xff) return null;
  return bytes.slice(12);
}

/** The canonical text of an address: IPv4 dotted, IPv4-mapped IPv6 as its IPv4, IPv6 compressed lower case. */
export function formatAddress(bytes: AddressBytes): string {
  const v4 = bytes.length === 4 ? bytes : mappedIpv4(bytes);
  if (v4) return Array.from(v4).join(".");
  const words = Array.from({ length: 8 }, (_, i) => (bytes[2 * i]! << 8) | bytes[2 * i + 1]!);
  // longest run of zero words (at least two) becomes "::"
  let best = -1;
  let bestLength = 1;
  for (let i = 0; i < 8; ) {
    if (words[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && words[j] === 0) j++;
    if (j - i > bestLength) {
      best = i;
      bestLength = j - i;
    }
    i = j;
  }
  const hex = words.map((w) => w.toString(16));
  if (best < 0) return hex.join(":");
  return `${hex.slice(0, best).join(":")}::${hex.slice(best + bestLength).join(":")}`;
}

/** Canonical text of an address, or null when the text is not one. */
export function normalizeAddress(text: string): string | null {
  const bytes = parseAddress(text);
  return bytes ? formatAddress(bytes) : null;
}

/** "10.0.0.0/8", "2001:db8::/32" or a bare address (a /32 or /128) → range; null when invalid. */
export function parseCidr(text: string): Cidr | null {
  const [address, prefixText, extra] = text.trim().split("/");
  if (extra !== undefined || address === undefined) return null;
  const bytes = parseAddress(address);
  if (!bytes) return null;
  const max = bytes.length * 8;
  if (prefixText === undefined) return { bytes, prefix: max };
  if (!/^\d{1,3}$/.test(prefixText)) return null;
  const prefix = Number(prefixText);
  return prefix <= max ? { bytes, prefix } : null;
}

function inRange(bytes: AddressBytes, range: Cidr): boolean {
  if (bytes.length !== range.bytes.length) return false;
  let bits = range.prefix;
  for (let i = 0; bits > 0; i++, bits -= 8) {
    const mask = bits >= 8 ? 0xff : (0xff << (8 - bits)) & 0xff;
    if ((bytes[i]! & mask) !== (range.bytes[i]! & mask)) return false;
  }
  return true;
}

/** True when the address is inside the range; an IPv4-mapped IPv6 address matches IPv4 ranges too. */
export function cidrContains(range: Cidr, address: AddressBytes): boolean {
  if (inRange(address, range)) return true;
  const v4 = mappedIpv4(address);
  return !!v4 && inRange(v4, range);
}

function ranges(table: [string, string][]): { range: Cidr; name: string }[] {
  return table.map(([cidr, name]) => ({ range: parseCidr(cidr)!, name }));
}

/** Special-purpose IPv4 ranges (IANA registry, RFC 6890) and cloud metadata endpoints. */
const IPV4_SPECIAL = ranges([
  ["0.0.0.0/8", "this network"],
  ["10.0.0.0/8", "private"],
  ["100.64.0.0/10", "shared address space (carrier-grade NAT)"],
  ["127.0.0.0/8", "loopback"],
  ["169.254.0.0/16", "link-local (cloud metadata)"],
  ["172.16.0.0/12", "private"],
  ["192.0.0.0/24", "IETF protocol assignments"],
  ["192.0.2.0/24", "documentation"],
  ["192.88.99.0/24", "6to4 relay anycast"],
  ["192.168.0.0/16", "private"],
  ["198.18.0.0/15", "benchmarking"],
  ["198.51.100.0/24", "documentation"],
  ["203.0.113.0/24", "documentation"],
  ["224.0.0.0/4", "multicast"],
  ["240.0.0.0/4", "reserved"],
  ["168.63.129.16/32", "cloud metadata (Azure)"],
]);

/** Special-purpose IPv6 ranges; IPv6 outside 2000::/3 (global unicast) is never public. */
const IPV6_SPECIAL = ranges([
  ["::/128", "unspecified"],
  ["::1/128", "loopback"],
  ["100::/64", "discard"],
  ["2001::/23", "IETF protocol assignments"],
  ["2001:db8::/32", "documentation"],
  ["3fff::/20", "documentation"],
  ["fc00::/7", "unique local (incl. cloud metadata fd00:ec2::254)"],
  ["fe80::/10", "link-local"],
  ["fec0::/10", "site-local"],
  ["ff00::/8", "multicast"],
]);
const GLOBAL_UNICAST = parseCidr("2000::/3")!;
/** IPv6 forms that carry an IPv4 address the packets end up at. */
const NAT64 = parseCidr("64:ff9b::/96")!;
const NAT64_LOCAL = parseCidr("64:ff9b:1::/48")!;
const SIX_TO_FOUR = parseCidr("2002::/16")!;
const IPV4_COMPATIBLE = parseCidr("::/96")!;

/**
 * Why an address must not be reached from the server on a user's say-so ("loopback",
 * "private", "link-local (cloud metadata)", …), or null when it is a public unicast address.
 */
export function nonPublicReason(address: AddressBytes): string | null {
  if (address.length === 4) return IPV4_SPECIAL.find((r) => inRange(address, r.range))?.name ?? null;
  const v4 = mappedIpv4(address);
  if (v4) return nonPublicReason(v4);
  if (inRange(address, NAT64)) return nonPublicReason(address.slice(12));
  if (inRange(address, NAT64_LOCAL)) return "local NAT64";
  if (inRange(address, SIX_TO_FOUR)) return nonPublicReason(address.slice(2, 6));
  const special = IPV6_SPECIAL.find((r) => inRange(address, r.range))?.name;
  if (special) return special;
  if (inRange(address, IPV4_COMPATIBLE)) return "IPv4-compatible (deprecated)";
  return inRange(address, GLOBAL_UNICAST) ? null : "not global unicast";
}

/** True for a public unicast address given as text; false for anything else, including non-addresses. */
export function isPublicAddress(text: string): boolean {
  const bytes = parseAddress(text);
  return !!bytes && nonPublicReason(bytes) === null;
}
