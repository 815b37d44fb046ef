/**
 * Who sends as the organisation: aggregate-report rows grouped by sender, with pass rates and a
 * verdict. Pure: the caller reads the rows, this file decides the grouping and the words.
 *
 * A user's mark on a sender (SENDER_VERDICTS: "approved" or "not_ours", stored per sender key)
 * overrides the guess: an approved sender that fails DMARC is a set-up job ("setup"), never a
 * threat; a sender marked not ours is spoofing ("spoofing") whatever its pass rate.
 */
import type { SenderVerdict as SenderMark } from "../db/schema/rollups";

export type { SenderMark };

/** One slice of report records (already summed by the caller per IP, service, domain and country). */
export interface SenderRow {
  sourceIp: string;
  service: string | null;
  serviceType: string | null;
  baseDomain: string | null;
  policyDomain: string;
  country: string | null;
  messages: number;
  /** messages passing DMARC */
  passing: number;
  spfAligned: number;
  dkimAligned: number;
  /** latest record period start, epoch milliseconds */
  lastSeen: number;
}

export type SenderKind = "service" | "domain" | "ip";
export type SenderVerdict = "authenticated" | "partly" | "failing" | "setup" | "spoofing";

export interface SenderSummary {
  /** "<kind>:<sender>", e.g. "service:Google", "domain:example.net", "ip:192.0.2.1": the sender page's and the mark's key */
  key: string;
  /** the user's mark on this sender, null when unmarked */
  mark: SenderMark | null;
  /** the service name (e.g. "Google"), else the PTR's base domain, else the source IP */
  sender: string;
  kind: SenderKind;
  serviceType: string | null;
  messages: number;
  /** share of messages passing DMARC, 0–100, one decimal */
  passRate: number;
  spfAlignedRate: number;
  dkimAlignedRate: number;
  /** distinct source IPs */
  ips: number;
  /** policy domains it sent as, most mail first, at most 5 */
  domains: string[];
  /** ISO country codes, most mail first, at most 3 */
  countries: string[];
  lastSeen: string;
  verdict: SenderVerdict;
}

export const MAX_SENDERS = 200;
export const MAX_SENDER_DOMAINS = 5;
export const MAX_SENDER_COUNTRIES = 3;
/** pass rate (percent) at or above which a sender is authenticated, and partly authenticated */
export const AUTHENTICATED_PASS_RATE = 98;
export const PARTLY_PASS_RATE = 50;

/** A share of `total` as a percentage with one decimal (0 when there is nothing). */
export function percentOf(part: number, total: number): number {
  return total > 0 ? Math.round((part / total) * 1000) / 10 : 0;
}

export function senderVerdict(passRate: number, mark: SenderMark | null = null): SenderVerdict {
  if (mark === "not_ours") return "spoofing";
  if (passRate >= AUTHENTICATED_PASS_RATE) return "authenticated";
  if (mark === "approved") return "setup";
  if (passRate >= PARTLY_PASS_RATE) return "partly";
  return "failing";
}

/** The sender a row belongs to: its known service, else its base domain, else its IP. */
export function senderOf(row: Pick<SenderRow, "service" | "baseDomain" | "sourceIp">): { sender: string; kind: SenderKind } {
  if (row.service) return { sender: row.service, kind: "service" };
  if (row.baseDomain) return { sender: row.baseDomain.toLowerCase(), kind: "domain" };
  return { sender: row.sourceIp, kind: "ip" };
}

const topKeys = (counts: Map<string, number>, n: number) =>
  [...counts.entries()]
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .slice(0, n)
    .map(([k]) => k);

const bump = (m: Map<string, number>, key: string, by: number) => m.set(key, (m.get(key) ?? 0) + by);

/** The key of a sender: "<kind>:<sender>". */
export const senderKeyOf = (s: { kind: SenderKind; sender: string }) => `${s.kind}:${s.sender}`;

/** The sender key of a record row (its service, else base domain, else IP). */
export const senderKeyOfRow = (row: Pick<SenderRow, "service" | "baseDomain" | "sourceIp">) => senderKeyOf(senderOf(row));

export const MAX_SENDER_KEY = 300;

/** A sender key split into its kind and sender, or null when it is not one ("service:Google"). */
export function parseSenderKey(key: string): { kind: SenderKind; sender: string } | null {
  const match = /^(service|domain|ip):(.+)$/.exec(key);
  if (!match || key.length > MAX_SENDER_KEY) return null;
  const kind = match[1] as SenderKind;
  const sender = match[2]!.trim();
  if (!sender) return null;
  if (kind === "domain") return { kind, sender: sender.toLowerCase() };
  if (kind === "ip") return /^[0-9A-Fa-f.:]+$/.test(sender) ? { kind, sender } : null;
  return { kind, sender };
}

/** Groups rows by sender; most messages first (then by name), at most `limit` senders. */
export function summariseSenders(rows: readonly SenderRow[], limit = MAX_SENDERS, marks: ReadonlyMap<string, SenderMark> = new Map()): SenderSummary[] {
  interface Acc {
    sender: string;
    kind: SenderKind;
    serviceTypes: Map<string, number>;
    messages: number;
    passing: number;
    spf: number;
    dkim: number;
    ips: Set<string>;
    domains: Map<string, number>;
    countries: Map<string, number>;
    lastSeen: number;
  }
  const groups = new Map<string, Acc>();
  for (const row of rows) {
    const { sender, kind } = senderOf(row);
    const key = senderKeyOf({ kind, sender });
    let g = groups.get(key);
    if (!g) {
      g = { sender, kind, serviceTypes: new Map(), messages: 0, passing: 0, spf: 0, dkim: 0, ips: new Set(), domains: new Map(), countries: new Map(), lastSeen: 0 };
      groups.set(key, g);
    }
    g.messages += row.messages;
    g.passing += row.passing;
    g.spf += row.spfAligned;
    g.dkim += row.dkimAligned;
    g.ips.add(row.sourceIp);
    bump(g.domains, row.policyDomain.toLowerCase(), row.messages);
    if (row.country) bump(g.countries, row.country.toUpperCase(), row.messages);
    if (row.serviceType) bump(g.serviceTypes, row.serviceType, row.messages);
    g.lastSeen = Math.max(g.lastSeen, row.lastSeen);
  }
  return [...groups.values()]
    .sort((a, b) => b.messages - a.messages || a.sender.localeCompare(b.sender))
    .slice(0, limit)
    .map((g) => {
      const passRate = percentOf(g.passing, g.messages);
      const key = senderKeyOf(g);
      const mark = marks.get(key) ?? null;
      return {
        key,
        mark,
        sender: g.sender,
        kind: g.kind,
        serviceType: topKeys(g.serviceTypes, 1)[0] ?? null,
        messages: g.messages,
        passRate,
        spfAlignedRate: percentOf(g.spf, g.messages),
        dkimAlignedRate: percentOf(g.dkim, g.messages),
        ips: g.ips.size,
        domains: topKeys(g.domains, MAX_SENDER_DOMAINS),
        countries: topKeys(g.countries, MAX_SENDER_COUNTRIES),
        lastSeen: new Date(g.lastSeen).toISOString(),
        verdict: senderVerdict(passRate, mark),
      };
    });
}

/** How to make a sender's mail pass DMARC, in plain words. */
export const SENDER_FIX = "add it to SPF or have it sign with DKIM for your domain";

/** The verdict in plain words, e.g. "Partly authenticated — 40% of its mail fails DMARC: ...". */
export function senderVerdictText(s: Pick<SenderSummary, "verdict" | "passRate" | "spfAlignedRate" | "dkimAlignedRate"> & { kind?: SenderSummary["kind"] }): string {
  const failing = Math.round((100 - s.passRate) * 10) / 10;
  if (s.verdict === "spoofing") {
    return s.passRate > 0
      ? `Not yours — marked as not yours, yet ${s.passRate}% of its mail passes DMARC: remove it from your SPF record and retire any DKIM key it signs with`
      : "Not yours — marked as not yours: its mail is spoofing; a DMARC policy of p=reject has receivers refuse it";
  }
  if (s.verdict === "setup") return `Yours, not set up yet — ${failing}% of its mail fails DMARC: ${SENDER_FIX}`;
  if (s.verdict === "authenticated") {
    const how = s.spfAlignedRate >= AUTHENTICATED_PASS_RATE && s.dkimAlignedRate >= AUTHENTICATED_PASS_RATE ? "SPF and DKIM aligned" : s.dkimAlignedRate >= s.spfAlignedRate ? "DKIM aligned" : "SPF aligned";
    return `Authenticated — ${how}`;
  }
  if (s.verdict === "partly") return `Partly authenticated — ${failing}% of its mail fails DMARC: ${SENDER_FIX}`;
  // A recognised service that fails is usually one of yours that was never set up; an unknown
  // server that fails is usually someone pretending to be you.
  if (s.kind === "service") return "Failing — this service is not set up to send as you: add it to SPF or turn on DKIM signing for your domain in its settings; if you don't use it, someone else is";
  return "Failing — not authorized to send as you; if you don't know it, this is spoofing";
}
