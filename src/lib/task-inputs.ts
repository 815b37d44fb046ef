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
  return {
    id: row.id,
    name: row.name,
    dmarcPolicy: row.dmarcPolicy,
    spfStatus: row.spfStatus,
    dkimStatus: row.dkimStatus,
    dmarcRecord: last?.dmarcRecord ?? null,
    createdAt: row.createdAt,
    lastReportAt: row.lastReportAt,
    since: last && last.dmarcPolicy === row.dmarcPolicy && last.spfStatus === row.spfStatus && last.dkimStatus === row.dkimStatus ? statusSince(history) : undefined,
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
 * domain, their addresses counted in `sources`. Domains and their addresses in code-unit order:
 * a domain's unrecognised entry first, then its senders in the order of their first address.
 */
export function failingSenders(rows: Iterable<FailingMailRow>, nameOf: (ip: string) => SourceName | undefined, markedIps: Iterable<string>): FailingSender[] {
  const marked = new Set(markedIps);
  interface Sums { messages: number; delivered: number; firstSeen: number }
  /** per domain: its named or marked IPs one by one, and its other IPs together (with their addresses, to count them) */
  interface Domain { own: Map<string, Sums>; unnamed: (Sums & { ips: Set<string> }) | null }
  const domains = new Map<string, Domain>();
  let lastDomainId: string | null = null;
  let domain: Domain | undefined;
  for (const r of rows) {
    if (r.domainId !== lastDomainId) {
      lastDomainId = r.domainId;
      domain = domains.get(lastDomainId);
      if (!domain) domains.set(lastDomainId, (domain = { own: new Map(), unnamed: null }));
    }
    if (nameOf(r.ip) !== undefined || marked.has(r.ip)) {
      const g = domain!.own.get(r.ip);
      if (!g) domain!.own.set(r.ip, { messages: r.failing, delivered: r.delivered, firstSeen: r.firstSeen });
      else {
        g.messages += r.failing;
        g.delivered += r.delivered;
        if (r.firstSeen < g.firstSeen) g.firstSeen = r.firstSeen;
      }
      continue;
    }
    const g = domain!.unnamed;
    if (!g) domain!.unnamed = { messages: r.failing, delivered: r.delivered, firstSeen: r.firstSeen, ips: new Set([r.ip]) };
    else {
      g.messages += r.failing;
      g.delivered += r.delivered;
      if (r.firstSeen < g.firstSeen) g.firstSeen = r.firstSeen;
      g.ips.add(r.ip);
    }
  }
  const date = (s: number) => new Date(s * 1000);
  const senders: FailingSender[] = [];
  for (const domainId of [...domains.keys()].sort(byCodeUnit)) {
    const d = domains.get(domainId)!;
    // the domain's unnamed, unmarked IPs: unrecognised, each its own sender
    if (d.unnamed) senders.push({ domainId, service: null, sender: null, senderKey: null, sources: d.unnamed.ips.size, messages: d.unnamed.messages, delivered: d.unnamed.delivered, firstSeenAt: date(d.unnamed.firstSeen) });
    const bySender = new Map<string, FailingSender>();
    for (const ip of [...d.own.keys()].sort(byCodeUnit)) {
      const g = d.own.get(ip)!;
      const firstSeenAt = date(g.firstSeen);
      const name = nameOf(ip);
      const service = name?.service ?? null;
      const sender = senderOf({ service, baseDomain: name?.baseDomain == null ? null : name.baseDomain.toLowerCase(), sourceIp: ip });
      const senderKey = senderKeyOf(sender);
      const cur = bySender.get(senderKey);
      if (!cur) {
        const entry: FailingSender = { domainId, service, sender: sender.sender, senderKey, sources: 1, messages: g.messages, delivered: g.delivered, firstSeenAt };
        bySender.set(senderKey, entry);
        senders.push(entry);
        continue;
      }
      cur.sources += 1;
      cur.messages += g.messages;
      cur.delivered += g.delivered;
      if (firstSeenAt < cur.firstSeenAt) cur.firstSeenAt = firstSeenAt;
    }
  }
  return senders;
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
