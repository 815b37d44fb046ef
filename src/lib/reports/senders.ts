/**
 * Known sending services: the base domain of a sender's reverse DNS name → service name
 * and type, from parsedmarc's base_reverse_dns_map.csv (Apache-2.0, see assets/senders).
 */
import { getDomain } from "../tld";

export interface SendingService {
  name: string;
  type: string;
}

/** Parses `base_reverse_dns,name,type` rows (RFC 4180 quoting). */
export function parseSenderMap(csv: string): Map<string, SendingService> {
  const map = new Map<string, SendingService>();
  const lines = csv.split(/\r?\n/);
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i]!;
    if (!line) continue;
    const cells = splitCsvLine(line);
    if (cells.length < 2 || !cells[0]) continue;
    map.set(cells[0].toLowerCase(), { name: cells[1] ?? "", type: cells[2] ?? "" });
  }
  return map;
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

export function serviceFor(map: Map<string, SendingService>, baseDomain: string | null): SendingService | null {
  return baseDomain ? (map.get(baseDomain) ?? null) : null;
}
