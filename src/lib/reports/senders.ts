/**
 * Known sending services: the base domain of a sender's reverse DNS name → service name
 * and type, from parsedmarc's base_reverse_dns_map.csv (Apache-2.0, see assets/senders).
 */
import { getDomain } from "../tld";

export interface SendingService {
  name: string;
  type: string;
}

/**
 * The catalog kept as its CSV text and the offset of each row, looked up by binary search on
 * the rows' base domains (the file is sorted by them): 38,628 rows held as a Map of objects
 * took 13 MB of heap and 227,000 objects for the life of the process, this about 3 MB (the
 * text) and one typed array, read in a few milliseconds instead of 30. A row is parsed when it
 * is found. A row out of order, with a quoted or upper-case base domain, or repeating the base
 * domain before it goes to a small map instead, looked at first (a repeated base domain's later
 * row stands, as when the file was read into a Map top to bottom).
 */
export class SenderCatalog {
  /** offset of each sorted row's first character */
  private readonly starts: Int32Array;
  /** offset of the comma after each sorted row's base domain */
  private readonly keyEnds: Int32Array;
  private readonly others = new Map<string, SendingService>();
  /** base domains named (a repeated one once) */
  readonly size: number;

  constructor(private readonly csv: string) {
    const starts: number[] = [];
    const keyEnds: number[] = [];
    let previous = "";
    // the first line names the columns
    let at = csv.indexOf("\n") + 1;
    while (at > 0 && at < csv.length) {
      let end = csv.indexOf("\n", at);
      if (end < 0) end = csv.length;
      const comma = csv.indexOf(",", at);
      if (end > at && !(end === at + 1 && csv.charCodeAt(at) === 13)) {
        const key = comma > at && comma < end ? csv.slice(at, comma) : "";
        if (key && key > previous && !key.includes('"') && key === key.toLowerCase()) {
          starts.push(at);
          keyEnds.push(comma);
          previous = key;
          // an earlier row of this base domain (quoted or upper-case) gives way to this one
          this.others.delete(key);
        } else {
          const cells = splitCsvLine(this.lineAt(at, end));
          if (cells.length >= 2 && cells[0]) this.others.set(cells[0].toLowerCase(), { name: cells[1] ?? "", type: cells[2] ?? "" });
        }
      }
      at = end + 1;
    }
    this.starts = Int32Array.from(starts);
    this.keyEnds = Int32Array.from(keyEnds);
    let repeated = 0;
    for (const key of this.others.keys()) if (this.find(key) >= 0) repeated++;
    this.size = this.starts.length + this.others.size - repeated;
  }

  /** The service of `baseDomain` (lower case), if the catalog names one. */
  get(baseDomain: string): SendingService | undefined {
    const other = this.others.get(baseDomain);
    if (other) return other;
    const row = this.find(baseDomain);
    if (row < 0) return undefined;
    let end = this.csv.indexOf("\n", this.starts[row]!);
    if (end < 0) end = this.csv.length;
    const cells = splitCsvLine(this.lineAt(this.starts[row]!, end));
    return { name: cells[1] ?? "", type: cells[2] ?? "" };
  }

  /** the sorted row of `key`, or -1 */
  private find(key: string): number {
    let low = 0;
    let high = this.starts.length - 1;
    while (low <= high) {
      const mid = (low + high) >>> 1;
      const order = this.compareKey(mid, key);
      if (order === 0) return mid;
      if (order < 0) low = mid + 1;
      else high = mid - 1;
    }
    return -1;
  }

  /** row `row`'s base domain against `key`, as strings compare: negative when the row's comes first */
  private compareKey(row: number, key: string): number {
    const csv = this.csv;
    const start = this.starts[row]!;
    const length = this.keyEnds[row]! - start;
    const n = Math.min(length, key.length);
    for (let i = 0; i < n; i++) {
      const d = csv.charCodeAt(start + i) - key.charCodeAt(i);
      if (d !== 0) return d;
    }
    return length - key.length;
  }

  /** the line from `start` to `end`, without a carriage return */
  private lineAt(start: number, end: number): string {
    return this.csv.slice(start, end > start && this.csv.charCodeAt(end - 1) === 13 ? end - 1 : end);
  }
}

/** Reads `base_reverse_dns,name,type` rows (RFC 4180 quoting; the first line names the columns). */
export function parseSenderMap(csv: string): SenderCatalog {
  return new SenderCatalog(csv);
}

/** One CSV line's cells (RFC 4180 quoting, no line breaks inside a cell). */
export function splitCsvLine(line: string): string[] {
  if (!line.includes('"')) return line.split(",");
  const cells: string[] = [];
  let cell = "";
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (quoted) {
      if (c === '"' && line[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (c === '"') quoted = false;
      else cell += c;
    } else if (c === '"') quoted = true;
    else if (c === ",") {
      cells.push(cell);
      cell = "";
    } else cell += c;
  }
  cells.push(cell);
  return cells;
}

/** The base domain of a reverse DNS name, e.g. mail-sor-f41.google.com → google.com. */
export function baseDomainOf(hostname: string): string | null {
  return getDomain(hostname.replace(/\.$/, "").toLowerCase()) ?? null;
}

export function serviceFor(map: Pick<SenderCatalog, "get">, baseDomain: string | null): SendingService | null {
  return baseDomain ? (map.get(baseDomain) ?? null) : null;
}
