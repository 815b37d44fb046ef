/**
 * The inputs of `deriveTasks` (src/lib/tasks.ts) built from stored rows, as pure functions: a
 * domain's current state from its row and DNS check history, the failing mail of a window
 * grouped per domain and sender, the rua an organization's suggested records name, and how it
 * receives its reports. Whoever reads the rows — one organization at a time (the dashboard) or
 * every client of an MSP at once (the portfolio) — builds the same inputs from them.
 */
import { byCodeUnit } from "./order";
import type { ReportDestination } from "./report-path";
import { senderKeyOf, senderOf, type SenderMark } from "./senders";
import { statusSince, type DomainState, type FailingSender, type StatusHistoryRow } from "./tasks";

/** A domain row as stored (the columns the tasks read). */
export interface DomainRow {
  id: string;
  name: string;
  dmarcPolicy: string | null;
  spfStatus: string | null;
  dkimStatus: string | null;
  createdAt: Date;
  lastReportAt: Date | null;
}

/**
 * The domain as it stands now: its row's statuses, the DMARC record of its last check, and
 * since when each status holds (from the history; statuses written without a history row of
 * the same values date from the domain's creation).
 */
export function currentDomainState(row: DomainRow, history: StatusHistoryRow[]): DomainState {
  const last = history.at(-1);
  const since = statusSince(history);
  return {
    id: row.id,
    name: row.name,
    dmarcPolicy: row.dmarcPolicy,
    spfStatus: row.spfStatus,
    dkimStatus: row.dkimStatus,
    dmarcRecord: last?.dmarcRecord ?? null,
    createdAt: row.createdAt,
    lastReportAt: row.lastReportAt,
    since: last && last.dmarcPolicy === row.dmarcPolicy && last.spfStatus === row.spfStatus && last.dkimStatus === row.dkimStatus ? since : undefined,
  };
}

/** One day's failing mail of one domain from one source address (a failing row of the daily sender roll-up). */
export interface FailingMailRow {
  domainId: string;
  ip: string;
  failing: number;
  delivered: number;
  /** epoch seconds */
  firstSeen: number;
}

/** What source_names says of an address. */
export interface SourceName {
  service: string | null;
  baseDomain: string | null;
}

/**
 * The window's failing mail per domain and sender: per sending service, and for unrecognised
 * mail per base domain, else per IP (the Senders view's grouping). Addresses without a name
 * (`nameOf` answers undefined) and not in `markedIps` come back as one unrecognised entry per
 * domain, their addresses counted in `sources`.
 */
export function failingSenders(rows: Iterable<FailingMailRow>, nameOf: (ip: string) => SourceName | undefined, markedIps: Iterable<string>): FailingSender[] {
  const marked = new Set(markedIps);
  /** per domain and IP (the domain's unnamed, unmarked IPs under "" with their count) */
  interface Group { domainId: string; ip: string; sources: number; messages: number; delivered: number; firstSeen: number; ips: Set<string> | null }
  const groups = new Map<string, Group>();
  for (const r of rows) {
    const own = nameOf(r.ip) !== undefined || marked.has(r.ip);
    const ip = own ? r.ip : "";
    const key = `${r.domainId}\n${ip}`;
    let g = groups.get(key);
    if (!g) {
      g = { domainId: r.domainId, ip, sources: 0, messages: 0, delivered: 0, firstSeen: r.firstSeen, ips: own ? null : new Set() };
      groups.set(key, g);
    }
    g.messages += r.failing;
    g.delivered += r.delivered;
    if (r.firstSeen < g.firstSeen) g.firstSeen = r.firstSeen;
    if (g.ips) g.ips.add(r.ip);
    else g.sources = 1;
  }
  const ordered = [...groups.values()].sort((a, b) => byCodeUnit(a.domainId, b.domainId) || byCodeUnit(a.ip, b.ip));
  const senders = new Map<string, FailingSender>();
  for (const g of ordered) {
    const firstSeenAt = new Date(g.firstSeen * 1000);
    if (g.ip === "") {
      senders.set(`${g.domainId}\n`, { domainId: g.domainId, service: null, sender: null, senderKey: null, sources: g.ips!.size, messages: g.messages, delivered: g.delivered, firstSeenAt });
      continue;
    }
    const name = nameOf(g.ip);
    const service = name?.service ?? null;
    const sender = senderOf({ service, baseDomain: name?.baseDomain == null ? null : name.baseDomain.toLowerCase(), sourceIp: g.ip });
    const senderKey = senderKeyOf(sender);
    const key = `${g.domainId}\n${senderKey}`;
    const cur = senders.get(key);
    if (!cur) {
      senders.set(key, { domainId: g.domainId, service, sender: sender.sender, senderKey, sources: 1, messages: g.messages, delivered: g.delivered, firstSeenAt });
      continue;
    }
    cur.sources += 1;
    cur.messages += g.messages;
    cur.delivered += g.delivered;
    if (firstSeenAt < cur.firstSeenAt) cur.firstSeenAt = firstSeenAt;
  }
  return [...senders.values()];
}

/** The IPs marked one by one (marks on "ip:<address>" keys): each stays its own sender. */
export function markedIpsOf(marks: ReadonlyMap<string, SenderMark>): string[] {
  return [...marks.keys()].filter((key) => key.startsWith("ip:")).map((key) => key.slice(3));
}

/** Each failing sender with the user's mark on it. */
export function withMarks(failing: FailingSender[], marks: ReadonlyMap<string, SenderMark>): FailingSender[] {
  return failing.map((f) => ({ ...f, mark: f.senderKey ? (marks.get(f.senderKey) ?? null) : null }));
}

/** Settings → DMARC rua when set, else `fallback` (this server's report address for the organization, if it receives mail). */
export function ruaAddressOf(dmarcRua: string | null | undefined, fallback: string | null): string | null {
  return dmarcRua?.replace(/^mailto:/i, "") || fallback;
}

/** An organization's OAuth mailbox as the report destination reads it. */
export interface OAuthMailboxState {
  email: string;
  status: string;
  createdAt: Date;
}

/**
 * How an organization receives its reports: this server's address, a connected IMAP mailbox
 * (its user name when that is an address) or OAuth mailbox (the first active one's address;
 * one whose consent was withdrawn reads nothing until reconnected), the rua of its settings.
 */
export function reportDestinationOf(input: { receiverAddress: string | null; imapUsername: string | null; oauth: OAuthMailboxState[]; dmarcRua: string | null | undefined }): ReportDestination {
  const oauthActive = [...input.oauth]
    .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || a.email.localeCompare(b.email))
    .filter((m) => m.status === "active");
  const imapAddress = input.imapUsername !== null && input.imapUsername.includes("@") ? input.imapUsername : null;
  return {
    receiverAddress: input.receiverAddress,
    mailboxConnected: input.imapUsername !== null || oauthActive.length > 0,
    mailboxAddress: imapAddress ?? oauthActive[0]?.email ?? null,
    configuredRua: (input.dmarcRua ?? "").replace(/^mailto:/i, ""),
  };
}
