/** GET /api/senders: who sends mail as the organisation's domains, and whether it is authenticated. */
import { sql } from "drizzle-orm";
import { inChunks, IP_CHUNK } from "../../db/id-set";
import type { OrgContext } from "../../http/access";
import { MAX_SENDERS, senderKeyOfRow, summariseSenders, type SenderRow, type SenderSummary } from "../../lib/senders";
import { keptRead } from "./read-cache";
import { nameUnnamedSources } from "./reverse-dns";
import { senderMarks } from "./sender-marks";

const DAY = 86_400;

/** A sender row with its address's PTR name (the sender page shows it). */
export type NamedSenderRow = SenderRow & { ptr: string | null };

/**
 * The sender rows of the organisation over the UTC days `fromDay`…`toDay` of the daily sender
 * roll-ups (optionally of one policy domain, and of some IPs only: `ips` to read only those
 * addresses' days on the (org_id, source_ip, day) index): summed per IP, policy domain and
 * country, then named from source_names (its PTR's service and base domain). The window's
 * roll-up rows are read once as they come, as arrays (`store.tuples`), and summed here per
 * address (cheaper than SQL's GROUP BY over three text keys, a temporary B-tree of every
 * address-day), named from one read of the organisation's names (or of the given IPs' names).
 * An address's rows come out together, in the order its policy domains and countries were first met.
 * Given `days`, the roll-up rows read are also added to it as they came (with their day,
 * quarantined and rejected messages): the sender page's daily trend, from the same read.
 */
export async function senderRowsBetween(ctx: OrgContext, range: { fromDay: number; toDay: number; domain?: string; ips?: string[] }, days?: SenderDayTuple[]): Promise<NamedSenderRow[]> {
  if (range.ips) return inChunks(range.ips, IP_CHUNK, async (chunk) => [...(await senderRowsOf(ctx, range, chunk, days)).values()].flat());
  return [...(await senderRowsOf(ctx, range, null, days)).values()].flat();
}

/** ip, policy domain, country, messages, passed, SPF aligned, DKIM aligned, newest period start (PostgreSQL may hand numbers back as strings) */
type DayTuple = [string, string, string | null, number | string, number | string, number | string, number | string, number | string];
/** a DayTuple with the row's day, quarantined and rejected messages after it */
export type SenderDayTuple = [...DayTuple, number | string, number | string, number | string];
type NameRow = { ip: string; ptr: string; service: string | null; serviceType: string | null; baseDomain: string | null };

/** The sender rows of the window (see senderRowsBetween), per address. */
async function senderRowsOf(ctx: OrgContext, range: { fromDay: number; toDay: number; domain?: string }, ips: string[] | null, days?: SenderDayTuple[]): Promise<Map<string, NamedSenderRow[]>> {
  const orgId = ctx.actor.orgId;
  if (ips && !ips.length) return new Map();
  const forDomain = range.domain ? sql`AND lower(s.policy_domain) = ${range.domain}` : sql``;
  const inIps = ips ? sql.join(ips.map((ip) => sql`${ip}`), sql`, `) : null;
  // some addresses: their days on (org_id, source_ip, day). SQLite's statistics, averaged over
  // all organizations, would otherwise have it walk a large organization's whole window on the
  // primary key (on the 10 M-record bench database it did, even for two addresses)
  const byIp = ips && ctx.store.dialect === "sqlite" ? sql`INDEXED BY daily_sender_stats_org_ip_idx` : sql``;
  const [rows, names] = await Promise.all([
    ctx.store.tuples<DayTuple | SenderDayTuple>(sql`
      SELECT s.source_ip AS "ip", s.policy_domain AS "policyDomain", s.country AS "country", s.messages AS "messages", s.passed AS "passed",
             s.spf_aligned AS "spfAligned", s.dkim_aligned AS "dkimAligned", s.last_begin AS "lastBegin"
             ${days ? sql`, s.day AS "day", s.quarantined AS "quarantined", s.rejected AS "rejected"` : sql``}
      FROM daily_sender_stats s ${byIp}
      WHERE s.org_id = ${orgId} ${inIps ? sql`AND s.source_ip IN (${inIps})` : sql``} AND s.day >= ${range.fromDay} AND s.day <= ${range.toDay} ${forDomain}`),
    ctx.store.rows<NameRow>(sql`
      SELECT n.source_ip AS "ip", n.ptr AS "ptr", n.service AS "service", n.service_type AS "serviceType", n.base_domain AS "baseDomain"
      FROM source_names n WHERE n.org_id = ${orgId} ${inIps ? sql`AND n.source_ip IN (${inIps})` : sql``}`),
  ]);
  if (days) for (const r of rows) days.push(r as SenderDayTuple);
  // per address its rows (nearly always one: an address-day row differs only by policy domain
  // or country), keyed by the address alone: no key text built per roll-up row
  const perIp = new Map<string, NamedSenderRow[]>();
  for (let i = 0; i < rows.length; i++) {
    const r = rows[i]!;
    const ip = r[0];
    const policyDomain = r[1];
    const country = r[2];
    let list = perIp.get(ip);
    if (list === undefined) perIp.set(ip, (list = []));
    let cur: NamedSenderRow | undefined;
    for (let j = 0; j < list.length; j++) {
      const c = list[j]!;
      if (c.policyDomain === policyDomain && c.country === country) {
        cur = c;
        break;
      }
    }
    if (cur === undefined) {
      list.push({
        sourceIp: ip,
        service: null,
        serviceType: null,
        baseDomain: null,
        ptr: null,
        policyDomain,
        country,
        messages: Number(r[3]),
        passing: Number(r[4]),
        spfAligned: Number(r[5]),
        dkimAligned: Number(r[6]),
        lastSeen: Number(r[7]),
      });
      continue;
    }
    cur.messages += Number(r[3]);
    cur.passing += Number(r[4]);
    cur.spfAligned += Number(r[5]);
    cur.dkimAligned += Number(r[6]);
    const seen = Number(r[7]);
    if (seen > cur.lastSeen) cur.lastSeen = seen;
  }
  const named = new Map(names.map((n) => [n.ip, n]));
  for (const [ip, list] of perIp) {
    const n = named.get(ip);
    for (const row of list) {
      if (n) {
        row.service = n.service ?? null;
        row.serviceType = n.serviceType ?? null;
        row.baseDomain = n.baseDomain ?? null;
        row.ptr = n.ptr ?? null;
      }
      row.lastSeen *= 1000;
    }
  }
  return perIp;
}

/**
 * Senders of the last `days` UTC days (today included, ending at `now`; the roll-up day is the
 * day a report's period begins), in the caller's organisation, optionally for one policy domain,
 * grouped by sender, each with the user's mark (which decides the verdict when set).
 */
export async function listSenders(ctx: OrgContext, opts: { days: number; domain?: string }): Promise<SenderSummary[]> {
  const toDay = Math.floor(ctx.now().getTime() / 1000 / DAY);
  const fromDay = toDay - opts.days + 1;
  // kept while the organization's roll-ups, names and marks stay as they are (read-cache.ts)
  return keptRead(ctx, `senders\n${fromDay}\n${toDay}\n${opts.domain ?? ""}`, async () => {
    const perIp = await senderRowsOf(ctx, { fromDay, toDay, domain: opts.domain }, null);
    const top = ofTopSenders(perIp, MAX_SENDERS);
    nameUnnamed(ctx, top);
    return summariseSenders(top, MAX_SENDERS, await senderMarks(ctx));
  });
}

/**
 * The listed addresses that have no PTR name yet, the most mail first, are looked up in the
 * background (nameUnnamedSources: a CLI ingest that ended before asking, a busy server that
 * skipped them): once named, the list read again shows their sending service.
 */
function nameUnnamed(ctx: OrgContext, rows: readonly NamedSenderRow[]): void {
  const messages = new Map<string, number>();
  for (const r of rows) if (r.ptr === null) messages.set(r.sourceIp, (messages.get(r.sourceIp) ?? 0) + r.messages);
  if (messages.size === 0) return;
  nameUnnamedSources(ctx, ctx.actor.orgId, [...messages].sort((a, b) => b[1] - a[1]).map(([ip]) => ip));
}

/**
 * The rows of the senders that can be among the `limit` with the most mail (every sender whose
 * messages reach the limit-th sender's, ties included), so the summary details only those:
 * an unrecognised IP is a sender of its own, and a window holds thousands of them. `perIp`
 * holds each address's rows (they share its names, so its sender).
 */
export function ofTopSenders<R extends SenderRow>(perIp: ReadonlyMap<string, readonly R[]>, limit: number): R[] {
  // an address without a service or base domain is a sender of its own (its IP): only named
  // addresses are summed per sender key
  const namedTotals = new Map<string, number>();
  const own: { rows: readonly R[]; key: string | null; messages: number }[] = [];
  const totals: number[] = [];
  for (const rows of perIp.values()) {
    let messages = 0;
    for (const row of rows) messages += row.messages;
    const first = rows[0]!;
    const key = first.service || first.baseDomain ? senderKeyOfRow(first) : null;
    if (key === null) totals.push(messages);
    else namedTotals.set(key, (namedTotals.get(key) ?? 0) + messages);
    own.push({ rows, key, messages });
  }
  for (const total of namedTotals.values()) totals.push(total);
  const all = own.flatMap((ip) => ip.rows);
  if (totals.length <= limit) return all;
  const least = Float64Array.from(totals).sort().reverse()[limit - 1]!;
  return own.filter((ip) => (ip.key === null ? ip.messages : namedTotals.get(ip.key)!) >= least).flatMap((ip) => ip.rows);
}
