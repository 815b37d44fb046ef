/**
 * IPv4 lookups in a MaxMind DB (MMDB) search tree, read straight from the file's bytes.
 *
 * The tree (MaxMind DB format 2.0, "Search Tree Section") is `nodeCount` nodes of two records of
 * `recordSize` bits (24, 28 or 32), big-endian; a record's value below `nodeCount` is the next
 * node, `nodeCount` itself means "no data", a value above it points into the data section. An
 * IPv6 tree holds IPv4 addresses under ::/96, so their walk starts at the node 96 left turns
 * from the root. mmdb-lib walks the same tree, but parses each address into a byte array and
 * reads each record through Buffer's `readUIntBE`: about 5 µs an address, a tenth of ingest's
 * main thread. This reads the bytes in place, and answers the record's value, so a caller can
 * keep what a record decodes to per value (a country database has a few hundred records).
 */
import { ipv4Number } from "./net/address";

/** the address is not a dotted quad in canonical form (the caller asks the library) */
export const NOT_IPV4 = -1;
/** no network of the database holds the address */
export const NOT_FOUND = 0;

export interface MmdbTreeShape {
  nodeCount: number;
  recordSize: number;
  ipVersion: number;
}

/**
 * A lookup of IPv4 addresses in the tree of `db` (the whole MMDB file): answers the record value
 * reached (above `nodeCount`: the address's data), NOT_FOUND, or NOT_IPV4 for anything but a
 * canonical dotted quad. Null when the shape is one this does not read (another record size).
 */
export function ipv4Lookup(db: Uint8Array, shape: MmdbTreeShape): ((ip: string) => number) | null {
  const { nodeCount, recordSize } = shape;
  if (recordSize !== 24 && recordSize !== 28 && recordSize !== 32) return null;
  const nodeBytes = recordSize / 4;
  if (nodeCount * nodeBytes > db.length) return null;
  const record = (node: number, right: number): number => {
    const o = node * nodeBytes;
    if (recordSize === 24) {
      return right ? (db[o + 3]! << 16) | (db[o + 4]! << 8) | db[o + 5]! : (db[o]! << 16) | (db[o + 1]! << 8) | db[o + 2]!;
    }
    if (recordSize === 28) {
      // the middle byte holds the high four bits of both records
      return right
        ? (db[o + 3]! & 0x0f) * 0x1000000 + ((db[o + 4]! << 16) | (db[o + 5]! << 8) | db[o + 6]!)
        : (db[o + 3]! >>> 4) * 0x1000000 + ((db[o]! << 16) | (db[o + 1]! << 8) | db[o + 2]!);
    }
    const p = right ? o + 4 : o;
    return db[p]! * 0x1000000 + ((db[p + 1]! << 16) | (db[p + 2]! << 8) | db[p + 3]!);
  };
  let start = 0;
  if (shape.ipVersion !== 4) for (let i = 0; i < 96 && start < nodeCount; i++) start = record(start, 0);
  return (ip: string): number => {
    const address = ipv4Number(ip);
    if (address < 0) return NOT_IPV4;
    let node = start;
    for (let bit = 31; bit >= 0 && node < nodeCount; bit--) node = record(node, (address >>> bit) & 1);
    return node > nodeCount ? node : NOT_FOUND;
  };
}
