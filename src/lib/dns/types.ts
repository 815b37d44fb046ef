/**
 * Shapes shared by the DNS checks. The checks are pure: they take what the resolver
 * answered (a LookupResult per query) and return findings written for a domain owner.
 */

/** How a DNS query ended. NXDOMAIN (the name does not exist) and NODATA (the name exists, no record of that type) are different answers. */
export type LookupStatus = "ok" | "nxdomain" | "nodata" | "servfail" | "timeout" | "refused" | "error";

export interface MxAnswer {
  exchange: string;
  priority: number;
}

/** One query's outcome. TXT records keep every character-string (`strings`) and their join (`text`). */
export interface LookupResult<T> {
  status: LookupStatus;
  records: T[];
  /** seconds this answer may be cached (0 when not cacheable) */
  ttl: number;
  /** a short reason for servfail/timeout/error */
  error?: string;
}

export interface TxtRecord {
  strings: string[];
  /** the strings joined with nothing between them (RFC 7208 §3.3, RFC 6376 §3.6.2.2) */
  text: string;
}

export type TxtLookup = LookupResult<TxtRecord>;

/** True when the query got a definite "nothing here" (the answers SPF counts as void lookups). */
export function isEmptyAnswer(status: LookupStatus): boolean {
  return status === "nxdomain" || status === "nodata";
}

/** True when the query failed for a reason that says nothing about the records (try again later). */
export function isTemporaryFailure(status: LookupStatus): boolean {
  return status === "servfail" || status === "timeout" || status === "refused" || status === "error";
}

export type FindingLevel = "error" | "warning" | "info";

/** One problem or note, in words a non-technical owner understands, with the fix to make. */
export interface Finding {
  level: FindingLevel;
  /** stable identifier, e.g. "spf.too_many_lookups" */
  code: string;
  message: string;
  fix?: string;
}

export function finding(level: FindingLevel, code: string, message: string, fix?: string): Finding {
  return fix ? { level, code, message, fix } : { level, code, message };
}

export const errorsOf = (findings: Finding[]) => findings.filter((f) => f.level === "error");
export const warningsOf = (findings: Finding[]) => findings.filter((f) => f.level === "warning");

/** A tag=value list (DMARC, DKIM, MTA-STS, TLS-RPT, BIMI records): order kept, duplicates and syntax errors reported. */
export interface TagList {
  tags: { name: string; value: string }[];
  /** the first value of each tag, by lower-case name */
  byName: Map<string, string>;
  duplicates: string[];
  /** parts that are not name=value */
  malformed: string[];
}

export function parseTagList(record: string): TagList {
  const tags: TagList["tags"] = [];
  const byName = new Map<string, string>();
  const duplicates: string[] = [];
  const malformed: string[] = [];
  for (const rawPart of record.split(";")) {
    const part = rawPart.trim();
    if (!part) continue;
    const eq = part.indexOf("=");
    if (eq <= 0) {
      malformed.push(part);
      continue;
    }
    const name = part.slice(0, eq).trim().toLowerCase();
    const value = part.slice(eq + 1).trim();
    if (!/^[a-z][a-z0-9_]*$/.test(name)) {
      malformed.push(part);
      continue;
    }
    tags.push({ name, value });
    if (byName.has(name)) {
      if (!duplicates.includes(name)) duplicates.push(name);
    } else byName.set(name, value);
  }
  return { tags, byName, duplicates, malformed };
}
