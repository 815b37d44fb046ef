/**
 * A tiny MaxMind DB (MMDB) writer, for tests only: a handful of networks → records, written
 * as the format spec (https://maxmind.github.io/MaxMind-DB/) lays it out:
 *
 *   search tree (node_count nodes × 2 records of record_size bits, big-endian)
 *   16 zero bytes (data section separator)
 *   data section (maps, strings, unsigned ints, arrays, doubles, booleans)
 *   "\xAB\xCD\xEFMaxMind.com" + metadata map
 *
 * A record value < node_count points to a node, == node_count means "no data", and
 * > node_count points into the data section at (value - node_count - 16).
 * In an IPv6 tree (ip_version 6) IPv4 networks live under ::/96, where readers look for them.
 * No overlapping networks, no deduplication beyond identical records, no pointers: it is
 * meant for a few networks, not for a real database.
 */
import { isIPv4, isIPv6 } from "node:net";

export type MmdbValue = string | number | bigint | boolean | MmdbValue[] | { [key: string]: MmdbValue };

export interface MmdbWriterOptions {
  /** 4: IPv4-only tree; 6 (default): IPv6 tree with IPv4 under ::/96 */
  ipVersion?: 4 | 6;
  /** bits per record: 24 (default), 28 or 32 */
  recordSize?: 24 | 28 | 32;
  databaseType?: string;
  description?: Record<string, string>;
  languages?: string[];
  /** build time; default 2025-04-01T00:00:00Z */
  buildEpoch?: Date;
}

interface Node {
  children: [Node | MmdbValue | null, Node | MmdbValue | null];
}

const isNode = (v: unknown): v is Node => typeof v === "object" && v !== null && (v as any)[NODE] === true;
const NODE = Symbol("node");

/** Writes an MMDB file from `networks`: CIDR (e.g. "81.2.69.0/24", "2001:db8::/32") → record. */
export function writeMmdb(networks: Record<string, MmdbValue>, options: MmdbWriterOptions = {}): Uint8Array {
  const ipVersion = options.ipVersion ?? 6;
  const recordSize = options.recordSize ?? 24;
  const bitLength = ipVersion === 6 ? 128 : 32;

  // 1. a binary trie of the networks' prefix bits
  const root = newNode();
  for (const [cidr, record] of Object.entries(networks)) {
    const { bits, prefix } = networkBits(cidr, ipVersion);
    if (prefix === 0 || prefix > bitLength) throw new Error(`mmdb-writer: prefix /${prefix} of ${cidr} is not supported`);
    let node = root;
    for (let i = 0; i < prefix - 1; i++) {
      const bit = bits[i]!;
      let next = node.children[bit];
      if (next === null) node.children[bit] = next = newNode();
      if (!isNode(next)) throw new Error(`mmdb-writer: ${cidr} overlaps a network given before`);
      node = next;
    }
    const last = bits[prefix - 1]!;
    if (node.children[last] !== null) throw new Error(`mmdb-writer: ${cidr} overlaps a network given before`);
    node.children[last] = record;
  }

  // 2. number the nodes (breadth first; the root is node 0)
  const nodes: Node[] = [];
  const queue: Node[] = [root];
  while (queue.length) {
    const node = queue.shift()!;
    nodes.push(node);
    for (const child of node.children) if (isNode(child)) queue.push(child);
  }
  const index = new Map(nodes.map((n, i) => [n, i]));
  const nodeCount = nodes.length;

  // 3. the data section: each distinct record once
  const data: Uint8Array[] = [];
  let dataSize = 0;
  const offsets = new Map<string, number>();
  const recordValue = (child: Node | MmdbValue | null): number => {
    if (child === null) return nodeCount;
    if (isNode(child)) return index.get(child)!;
    const key = JSON.stringify(child, (_k, v) => (typeof v === "bigint" ? `${v}n` : v));
    let offset = offsets.get(key);
    if (offset === undefined) {
      const bytes = encode(child);
      offsets.set(key, (offset = dataSize));
      data.push(bytes);
      dataSize += bytes.length;
    }
    return nodeCount + 16 + offset;
  };

  // 4. the search tree
  const nodeBytes = (recordSize * 2) / 8;
  const tree = new Uint8Array(nodeCount * nodeBytes);
  nodes.forEach((node, i) => {
    const left = recordValue(node.children[0]);
    const right = recordValue(node.children[1]);
    const max = 2 ** recordSize;
    if (left >= max || right >= max) throw new Error("mmdb-writer: record value does not fit the record size");
    const at = i * nodeBytes;
    if (recordSize === 24) {
      tree.set(uint(left, 3), at);
      tree.set(uint(right, 3), at + 3);
    } else if (recordSize === 32) {
      tree.set(uint(left, 4), at);
      tree.set(uint(right, 4), at + 4);
    } else {
      // 28 bits: left's low 24 bits, then a middle byte (left's high nibble | right's high nibble), then right's low 24 bits
      tree.set(uint(left & 0xffffff, 3), at);
      tree[at + 3] = (((left >>> 24) & 0x0f) << 4) | ((right >>> 24) & 0x0f);
      tree.set(uint(right & 0xffffff, 3), at + 4);
    }
  });

  const metadata = encode({
    node_count: nodeCount,
    record_size: recordSize,
    ip_version: ipVersion,
    database_type: options.databaseType ?? "Test-City",
    languages: options.languages ?? ["en"],
    binary_format_major_version: 2,
    binary_format_minor_version: 0,
    build_epoch: BigInt(Math.floor((options.buildEpoch ?? new Date("2025-04-01T00:00:00Z")).getTime() / 1000)),
    description: options.description ?? { en: "dmarcwarden test database" },
  });
  const marker = new Uint8Array([0xab, 0xcd, 0xef, ...new TextEncoder().encode("MaxMind.com")]);
  return concat(tree, new Uint8Array(16), ...data, marker, metadata);
}

function newNode(): Node {
  const node = { children: [null, null] } as Node;
  Object.defineProperty(node, NODE, { value: true });
  return node;
}

/** The address bits of a CIDR, as the tree stores them (IPv4 under ::/96 in an IPv6 tree). */
function networkBits(cidr: string, ipVersion: 4 | 6): { bits: (0 | 1)[]; prefix: number } {
  const [address = "", prefixText] = cidr.split("/");
  let bytes: number[];
  let prefix = Number(prefixText);
  if (isIPv4(address)) {
    bytes = address.split(".").map(Number);
    if (prefixText === undefined) prefix = 32;
    if (ipVersion === 6) {
      bytes = [...new Array(12).fill(0), ...bytes];
      prefix += 96;
    }
  } else if (isIPv6(address)) {
    if (ipVersion === 4) throw new Error(`mmdb-writer: ${cidr} is IPv6 but the tree is IPv4`);
    bytes = ipv6Bytes(address);
    if (prefixText === undefined) prefix = 128;
  } else {
    throw new Error(`mmdb-writer: ${cidr} is not a network`);
  }
  const bits = bytes.flatMap((b) => Array.from({ length: 8 }, (_, i) => ((b >> (7 - i)) & 1) as 0 | 1));
  return { bits, prefix };
}

function ipv6Bytes(address: string): number[] {
  const [head = "", tail] = address.split("::");
  const groups = (s: string) => (s ? s.split(":") : []);
  const left = groups(head);
  const right = tail === undefined ? [] : groups(tail);
  const all = tail === undefined ? left : [...left, ...new Array(8 - left.length - right.length).fill("0"), ...right];
  return all.flatMap((g) => {
    const n = Number.parseInt(g, 16);
    return [n >> 8, n & 0xff];
  });
}

// ---- data section encoding --------------------------------------------------------------

const TYPE = { string: 2, double: 3, uint16: 5, uint32: 6, map: 7, uint64: 9, array: 11, boolean: 14 } as const;

function encode(value: MmdbValue): Uint8Array {
  if (typeof value === "string") {
    const bytes = new TextEncoder().encode(value);
    return concat(control(TYPE.string, bytes.length), bytes);
  }
  if (typeof value === "boolean") return control(TYPE.boolean, value ? 1 : 0);
  if (typeof value === "bigint") {
    const bytes = minimalUint(value);
    return concat(control(TYPE.uint64, bytes.length), bytes);
  }
  if (typeof value === "number") {
    if (Number.isInteger(value) && value >= 0 && value <= 0xffffffff) {
      const bytes = minimalUint(BigInt(value));
      return concat(control(value <= 0xffff ? TYPE.uint16 : TYPE.uint32, bytes.length), bytes);
    }
    const bytes = new Uint8Array(8);
    new DataView(bytes.buffer).setFloat64(0, value);
    return concat(control(TYPE.double, 8), bytes);
  }
  if (Array.isArray(value)) return concat(control(TYPE.array, value.length), ...value.map(encode));
  const entries = Object.entries(value);
  return concat(control(TYPE.map, entries.length), ...entries.flatMap(([k, v]) => [encode(k), encode(v)]));
}

/** Control byte(s): type in the top 3 bits (0 + an extended-type byte for types above 7), then the size. */
function control(type: number, size: number): Uint8Array {
  const out: number[] = [];
  let sizeBits: number;
  const extra: number[] = [];
  if (size < 29) sizeBits = size;
  else if (size < 285) {
    sizeBits = 29;
    extra.push(size - 29);
  } else if (size < 65821) {
    sizeBits = 30;
    extra.push(...uint(size - 285, 2));
  } else {
    sizeBits = 31;
    extra.push(...uint(size - 65821, 3));
  }
  if (type <= 7) out.push((type << 5) | sizeBits);
  else out.push(sizeBits, type - 7);
  return new Uint8Array([...out, ...extra]);
}

function minimalUint(value: bigint): Uint8Array {
  const bytes: number[] = [];
  for (let v = value; v > 0n; v >>= 8n) bytes.unshift(Number(v & 0xffn));
  return new Uint8Array(bytes);
}

function uint(value: number, length: number): Uint8Array {
  const out = new Uint8Array(length);
  for (let i = length - 1, v = value; i >= 0; i--, v = Math.floor(v / 256)) out[i] = v & 0xff;
  return out;
}

function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** The same IPv4 addresses every run for a seed: a linear congruential sequence of 32-bit numbers, as dotted quads. */
export function sampleIpv4(count: number, seed: number): string[] {
  const out: string[] = [];
  let x = seed >>> 0;
  for (let i = 0; i < count; i++) {
    x = (Math.imul(x, 1664525) + 1013904223) >>> 0;
    out.push(`${x >>> 24}.${(x >>> 16) & 255}.${(x >>> 8) & 255}.${x & 255}`);
  }
  return out;
}
