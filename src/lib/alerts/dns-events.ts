/**
 * DNS events: compares two checks of one domain and names what changed — a watched record
 * appeared, changed or disappeared, the overall status moved, the DMARC policy was weakened —
 * and the problems that hold now (SPF over its lookup limit, weak DKIM keys).
 *
 * A check is kept as a DnsSnapshot: the few facts events need, plain JSON, so the last one of
 * each domain can be stored and compared with the next.
 */
import type { DkimStatus } from "../dns/dkim";
import type { DmarcStatus } from "../dns/dmarc";
import type { OverallStatus } from "../dns/overall";
import type { SpfStatus } from "../dns/spf-tree";
import { conditionKey, conditionScope } from "./conditions";
import { DNS_EVENT_TYPES, type AlertEvent, type WatchedRecord } from "./events";

interface ExtraLike {
  recordValue: string | null;
  findings: { code: string }[];
}

/** The parts of a DNS analysis (src/features/dns/analyze.ts) that events read. */
export interface DnsCheckLike {
  domain: string;
  checkedAt: string;
  overallStatus: OverallStatus;
  incomplete: boolean;
  dmarc: { recordValue: string | null; status: DmarcStatus; details: { pct: number | null; rua: { address: string }[] } };
  spf: { recordValue: string | null; status: SpfStatus; details: { lookupCount: number; lookupLimit: number } };
  dkim: { status: DkimStatus; details: { selectorsTried: string[]; keys: { selector: string; record: string; status: string; keyType?: string; bits?: number }[] } };
  extras: { mx: ExtraLike; mtaSts: ExtraLike; tlsRpt: ExtraLike };
}

export interface DkimKeySnapshot {
  selector: string;
  record: string;
  status: string;
  keyType?: string;
  bits?: number;
}

export interface DnsSnapshot {
  domain: string;
  checkedAt: string;
  overallStatus: OverallStatus;
  dmarc: { record: string | null; status: DmarcStatus; pct: number | null; rua: string[] };
  spf: { record: string | null; status: SpfStatus; lookupCount: number; lookupLimit: number };
  dkim: { selectorsTried: string[]; keys: DkimKeySnapshot[] };
  mx: string | null;
  mtaSts: string | null;
  tlsRpt: string | null;
  /** records whose lookup failed in this check: their value says nothing, so no event is drawn from them */
  unknown: WatchedRecord[];
}

/** The snapshot of one check, or null when DNS failed during it (nothing can be concluded from it). */
export function dnsSnapshot(check: DnsCheckLike): DnsSnapshot | null {
  if (check.incomplete) return null;
  const failed = (extra: ExtraLike) => extra.findings.some((f) => f.code.endsWith(".lookup_failed"));
  const unknown: WatchedRecord[] = [];
  if (failed(check.extras.mx)) unknown.push("mx");
  if (failed(check.extras.mtaSts)) unknown.push("mta_sts");
  if (failed(check.extras.tlsRpt)) unknown.push("tls_rpt");
  return {
    domain: check.domain.toLowerCase(),
    checkedAt: check.checkedAt,
    overallStatus: check.overallStatus,
    dmarc: { record: check.dmarc.recordValue, status: check.dmarc.status, pct: check.dmarc.details.pct, rua: check.dmarc.details.rua.map((u) => u.address) },
    spf: { record: check.spf.recordValue, status: check.spf.status, lookupCount: check.spf.details.lookupCount, lookupLimit: check.spf.details.lookupLimit },
    dkim: {
      selectorsTried: check.dkim.details.selectorsTried,
      keys: check.dkim.details.keys.map(({ selector, record, status, keyType, bits }) => ({ selector, record, status, keyType, bits })),
    },
    mx: unknown.includes("mx") ? null : check.extras.mx.recordValue,
    mtaSts: unknown.includes("mta_sts") ? null : check.extras.mtaSts.recordValue,
    tlsRpt: unknown.includes("tls_rpt") ? null : check.extras.tlsRpt.recordValue,
    unknown,
  };
}

const STATUS_RANK: Record<OverallStatus, number> = { vulnerable: 0, partial: 1, protected: 2 };
const POLICY_RANK: Partial<Record<DmarcStatus, number>> = { none: 0, quarantine: 1, reject: 2 };

/** The active-key scope of DNS conditions for one domain (for updateConditions). */
export const dnsConditionScope = (domain: string) => conditionScope(domain.toLowerCase(), DNS_EVENT_TYPES);

function recordEvents(domain: string, record: WatchedRecord, before: string | null, after: string | null, selector?: string): AlertEvent[] {
  if (before === after) return [];
  const qualifier = selector ? [selector] : [];
  const data = { record, ...(selector ? { selector } : {}), before, after };
  // the key carries the new value: a later change to a different value is a new cause
  const fingerprint = shortHash(after ?? "");
  if (before === null) return [{ type: "dns.record_appeared", domain, data, dedupeKey: conditionKey("dns.record_appeared", domain, record, ...qualifier, fingerprint) }];
  if (after === null) return [{ type: "dns.record_disappeared", domain, data, dedupeKey: conditionKey("dns.record_disappeared", domain, record, ...qualifier) }];
  return [{ type: "dns.record_changed", domain, data, dedupeKey: conditionKey("dns.record_changed", domain, record, ...qualifier, fingerprint) }];
}

/** FNV-1a, enough to tell record values apart inside a key. */
function shortHash(text: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  return (hash >>> 0).toString(16).padStart(8, "0");
}

function dmarcWeakening(domain: string, before: DnsSnapshot["dmarc"], after: DnsSnapshot["dmarc"]): AlertEvent[] {
  const was = POLICY_RANK[before.status];
  const now = POLICY_RANK[after.status];
  // a record that vanished or broke is a record event and a status event, not a weakening
  if (was === undefined || now === undefined) return [];
  const reasons: string[] = [];
  if (now < was) reasons.push("policy");
  const enforcing = after.status !== "none";
  if (enforcing && now <= was && (after.pct ?? 100) < (before.pct ?? 100)) reasons.push("pct");
  if (before.rua.length > 0 && after.rua.length === 0) reasons.push("rua");
  if (!reasons.length) return [];
  return [
    {
      type: "dns.dmarc_weakened",
      domain,
      data: {
        reasons,
        before: { policy: before.status, pct: before.pct ?? 100, rua: before.rua, record: before.record },
        after: { policy: after.status, pct: after.pct ?? 100, rua: after.rua, record: after.record },
      },
      dedupeKey: conditionKey("dns.dmarc_weakened", domain, after.status, after.pct ?? 100, after.rua.length ? "rua" : "no-rua"),
    },
  ];
}

/** Conditions that hold in one check by itself: SPF over its lookup limit, weak DKIM keys. */
function standingProblems(after: DnsSnapshot): AlertEvent[] {
  const domain = after.domain;
  const events: AlertEvent[] = [];
  if (after.spf.status === "too many lookups" || after.spf.lookupCount > after.spf.lookupLimit) {
    events.push({
      type: "dns.spf_too_many_lookups",
      domain,
      data: { lookupCount: after.spf.lookupCount, lookupLimit: after.spf.lookupLimit, record: after.spf.record },
      dedupeKey: conditionKey("dns.spf_too_many_lookups", domain),
    });
  }
  for (const key of after.dkim.keys) {
    if (key.status !== "weak key") continue;
    events.push({
      type: "dns.dkim_weak_key",
      domain,
      data: { selector: key.selector, keyType: key.keyType ?? "rsa", bits: key.bits ?? null },
      dedupeKey: conditionKey("dns.dkim_weak_key", domain, key.selector),
    });
  }
  return events;
}

/**
 * Every DNS condition that holds after `after`, as the event it raises, given the previous
 * check (`before`, null for a domain's first check: no change events then, only standing
 * problems). Feed the result to updateConditions with dnsConditionScope(domain).
 */
export function dnsConditions(before: DnsSnapshot | null, after: DnsSnapshot): AlertEvent[] {
  const domain = after.domain;
  const events: AlertEvent[] = [];
  if (before) {
    events.push(...recordEvents(domain, "dmarc", before.dmarc.record, after.dmarc.record));
    events.push(...recordEvents(domain, "spf", before.spf.record, after.spf.record));
    const selectors = new Set([...before.dkim.keys, ...after.dkim.keys].map((k) => k.selector));
    for (const selector of [...selectors].sort()) {
      const was = before.dkim.keys.find((k) => k.selector === selector)?.record ?? null;
      const now = after.dkim.keys.find((k) => k.selector === selector)?.record ?? null;
      // a selector this check did not try says nothing about its key
      if (now === null && !after.dkim.selectorsTried.includes(selector)) continue;
      events.push(...recordEvents(domain, "dkim", was, now, selector));
    }
    const extras: [WatchedRecord, string | null, string | null][] = [
      ["mx", before.mx, after.mx],
      ["mta_sts", before.mtaSts, after.mtaSts],
      ["tls_rpt", before.tlsRpt, after.tlsRpt],
    ];
    for (const [record, was, now] of extras) {
      if (before.unknown.includes(record) || after.unknown.includes(record)) continue;
      events.push(...recordEvents(domain, record, was, now));
    }
    const rankBefore = STATUS_RANK[before.overallStatus];
    const rankAfter = STATUS_RANK[after.overallStatus];
    if (rankBefore !== rankAfter) {
      const type = rankAfter < rankBefore ? "dns.status_worse" : "dns.status_better";
      events.push({ type, domain, data: { before: before.overallStatus, after: after.overallStatus }, dedupeKey: conditionKey(type, domain, after.overallStatus) });
    }
    events.push(...dmarcWeakening(domain, before.dmarc, after.dmarc));
  }
  events.push(...standingProblems(after));
  return events;
}
