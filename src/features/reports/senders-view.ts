/** GET /api/senders: who sends mail as the organisation's domains, and whether it is authenticated. */
import { sql } from "drizzle-orm";
import { inChunks, IP_CHUNK } from "../../db/id-set";
import { byCodeUnit } from "../../lib/order";
import type { OrgContext } from "../../http/access";
import { MAX_SENDERS, senderKeyOfRow, summariseSenders, type SenderRow, type SenderSummary } from "../../lib/senders";
import { keptRead, windowSums } from "./read-cache";
import { nameUnnamedSources } from "./reverse-dns";
import { senderMarks } from "./sender-marks";

const DAY = 86_400;

/** A sender row with its address's PTR name (the sender page shows it). */
export type NamedSenderRow = SenderRow & { ptr: string | null };

/**
 * The sender rows of some addresses of the organisation (the sender page's) over the UTC days
 * `fromDay`…`toDay` of the daily sender roll-ups: their days read on the (org_id, source_ip, day)
 * index, summed per IP, policy domain and country, then named from source_names (its PTR's
 * service and base domain). The sums and day rows of the window's settled days are kept while
 * they hold, per set of addresses (read-cache.ts, windowSums); the rows are stepped through
 * (`store.eachRow`: none held) and summed here per address (cheaper than SQL's GROUP BY over
 * three text keys, a temporary B-tree of every address-day). An address's rows come out
 * together, in the order its policy domains and countries were first met. The window's roll-up
 * rows are added to `days` (with their day, quarantined and rejected messages): the sender page's
 * daily trend, from the same read.
 */
export async function senderRowsBetween(ctx: OrgContext, range: { fromDay: number; toDay: number; ips: string[] }, days: SenderDayTuple[]): Promise<NamedSenderRow[]> {
  const ips = [...new Set(range.ips)].sort(byCodeUnit);
  if (!ips.length) return [];
  // the settled days' sums and day rows kept while they hold, the last days' read afresh
  // (read-cache.ts); kept per set of addresses, which names decide and may change
  const [part, names] = await Promise.all([
    windowSums(
      ctx,
      `sender-ips\n${ips.join(" ")}`,
      range,
      async (fromDay, toDay) => {
        const sums: SumsPerIp = new Map();
        const dayRows: SenderDayTuple[] = [];
        for (let i = 0; i < ips.length; i += IP_CHUNK) for (const [ip, rows] of await sumsOf(ctx, { fromDay, toDay }, ips.slice(i, i + IP_CHUNK), dayRows)) sums.set(ip, rows);
        return { sums, days: dayRows };
      },
      (settled, recent) => ({ sums: addedSums(settled.sums, recent.sums), days: [...settled.days, ...recent.days] }),
      (p) => p.sums.size + p.days.length,
    ),
    inChunks(ips, IP_CHUNK, (chunk) => namesOf(ctx, chunk)),
  ]);
  for (const d of part.days) days.push(d);
  return [...namedRows(part.sums, names).values()].flat();
}

type Num = number | string;
/** A roll-up row read (PostgreSQL may hand numbers back as strings); the day and the quarantined and rejected messages when asked for. */
type DayRow = { ip: string; policyDomain: string; country: string | null; messages: Num; passed: Num; spfAligned: Num; dkimAligned: Num; lastBegin: Num; day?: Num; quarantined?: Num; rejected?: Num };
/** ip, policy domain, country, messages, passed, SPF aligned, DKIM aligned, newest period start, day, quarantined, rejected */
export type SenderDayTuple = [string, string, string | null, Num, Num, Num, Num, Num, Num, Num, Num];
type NameRow = { ip: string; ptr: string; service: string | null; serviceType: string | null; baseDomain: string | null };

/** One address's sums over some days, for one policy domain and country: a sender row before its names, lastSeen in seconds. */
type SumRow = Pick<SenderRow, "policyDomain" | "country" | "messages" | "passing" | "spfAligned" | "dkimAligned" | "lastSeen">;
/** per address its sum rows (nearly always one: an address-day row differs only by policy domain or country) */
type SumsPerIp = Map<string, SumRow[]>;

/** The window's roll-up rows summed per address, policy domain and country (see senderRowsBetween). */
async function sumsOf(ctx: OrgContext, range: { fromDay: number; toDay: number; domain?: string }, ips: string[] | null, days?: SenderDayTuple[]): Promise<SumsPerIp> {
  const forDomain = range.domain ? sql`AND lower(s.policy_domain) = ${range.domain}` : sql``;
  const inIps = ips ? sql.join(ips.map((ip) => sql`${ip}`), sql`, `) : null;
  // some addresses: their days on (org_id, source_ip, day). SQLite's statistics, averaged over
  // all organizations, would otherwise have it walk a large organization's whole window on the
  // primary key (on the 10 M-record bench database it did, even for two addresses)
  const byIp = ips && ctx.store.dialect === "sqlite" ? sql`INDEXED BY daily_sender_stats_org_ip_idx` : sql``;
  // keyed by the address alone: no key text built per roll-up row; the rows stepped through, never all held
  const perIp: SumsPerIp = new Map();
  await ctx.store.eachRow<DayRow>(
    sql`
    SELECT s.source_ip AS "ip", s.policy_domain AS "policyDomain", s.country AS "country", s.messages AS "messages", s.passed AS "passed",
           s.spf_aligned AS "spfAligned", s.dkim_aligned AS "dkimAligned", s.last_begin AS "lastBegin"
           ${days ? sql`, s.day AS "day", s.quarantined AS "quarantined", s.rejected AS "rejected"` : sql``}
    FROM daily_sender_stats s ${byIp}
    WHERE s.org_id = ${ctx.actor.orgId} ${inIps ? sql`AND s.source_ip IN (${inIps})` : sql``} AND s.day >= ${range.fromDay} AND s.day <= ${range.toDay} ${forDomain}`,
    (r) => {
      if (days) days.push([r.ip, r.policyDomain, r.country, r.messages, r.passed, r.spfAligned, r.dkimAligned, r.lastBegin, r.day!, r.quarantined!, r.rejected!]);
      let list = perIp.get(r.ip);
      if (list === undefined) perIp.set(r.ip, (list = []));
      addSums(list, r.policyDomain, r.country, Number(r.messages), Number(r.passed), Number(r.spfAligned), Number(r.dkimAligned), Number(r.lastBegin));
    },
  );
  return perIp;
}

/** Adds one row's figures to the address's sum row of its policy domain and country (a new one at the end when it has none). */
function addSums(list: SumRow[], policyDomain: string, country: string | null, messages: number, passing: number, spfAligned: number, dkimAligned: number, lastSeen: number): void {
  for (let j = 0; j < list.length; j++) {
    const c = list[j]!;
    if (c.policyDomain === policyDomain && c.country === country) {
      c.messages += messages;
      c.passing += passing;
      c.spfAligned += spfAligned;
      c.dkimAligned += dkimAligned;
      if (lastSeen > c.lastSeen) c.lastSeen = lastSeen;
      return;
    }
  }
  list.push({ policyDomain, country, messages, passing, spfAligned, dkimAligned, lastSeen });
}

/** The sums of two parts of a window, changing neither: an address's rows in the order the first part met them, then the second's. */
function addedSums(settled: SumsPerIp, recent: SumsPerIp): SumsPerIp {
  const merged: SumsPerIp = new Map(settled);
  for (const ip of recent.keys()) merged.set(ip, sumsAcross([settled, recent], ip));
  return merged;
}

/** One address's sum rows of several parts added up, in new rows (the parts are left as they are). */
function sumsAcross(parts: readonly SumsPerIp[], ip: string): SumRow[] {
  const sums: SumRow[] = [];
  for (const part of parts) for (const r of part.get(ip) ?? []) addSums(sums, r.policyDomain, r.country, r.messages, r.passing, r.spfAligned, r.dkimAligned, r.lastSeen);
  return sums;
}

/** The organisation's PTR names, of the given addresses only or of all. */
function namesOf(ctx: OrgContext, ips: string[] | null): Promise<NameRow[]> {
  const inIps = ips ? sql.join(ips.map((ip) => sql`${ip}`), sql`, `) : null;
  return ctx.store.rows<NameRow>(sql`
    SELECT n.source_ip AS "ip", n.ptr AS "ptr", n.service AS "service", n.service_type AS "serviceType", n.base_domain AS "baseDomain"
    FROM source_names n WHERE n.org_id = ${ctx.actor.orgId} ${inIps ? sql`AND n.source_ip IN (${inIps})` : sql``}`);
}

/** The sums as sender rows, each with its address's names (new rows: the sums are left as they are). */
function namedRows(perIp: SumsPerIp, names: NameRow[]): Map<string, NamedSenderRow[]> {
  const named = new Map(names.map((n) => [n.ip, n]));
  const out = new Map<string, NamedSenderRow[]>();
  for (const [ip, sums] of perIp) out.set(ip, rowsNamed(ip, sums, named.get(ip)));
  return out;
}

/** One address's sum rows as sender rows with its names. */
function rowsNamed(ip: string, sums: readonly SumRow[], n: NameRow | undefined): NamedSenderRow[] {
  const service = n?.service ?? null;
  const serviceType = n?.serviceType ?? null;
  const baseDomain = n?.baseDomain ?? null;
  const ptr = n?.ptr ?? null;
  return sums.map((r) => ({
    sourceIp: ip,
    service,
    serviceType,
    baseDomain,
    ptr,
    policyDomain: r.policyDomain,
    country: r.country,
    messages: r.messages,
    passing: r.passing,
    spfAligned: r.spfAligned,
    dkimAligned: r.dkimAligned,
    lastSeen: r.lastSeen * 1000,
  }));
}

/** A window part's sums (sumsOf) with its addresses in order and their messages. */
interface SumsPart {
  sums: SumsPerIp;
  ips: string[];
  messages: Float64Array;
}

function partOf(sums: SumsPerIp): SumsPart {
  const ips: string[] = [];
  const messages = new Float64Array(sums.size);
  for (const [ip, rows] of sums) {
    let n = 0;
    for (let i = 0; i < rows.length; i++) n += rows[i]!.messages;
    messages[ips.length] = n;
    ips.push(ip);
  }
  return { sums, ips, messages };
}

/** Where each address of a part is, made once per part when first asked (only a window's first part, its kept settled days, is asked). */
const places = new WeakMap<SumsPart, Map<string, number>>();
function placesOf(part: SumsPart): Map<string, number> {
  let at = places.get(part);
  if (!at) places.set(part, (at = new Map(part.ips.map((ip, i) => [ip, i]))));
  return at;
}

/**
 * The named rows of the senders that can be among the `limit` with the most mail (ofTopSenders),
 * from the parts of a window (its settled days' kept sums, its last days'), changing none: each
 * address's total and sender key first — the first part's totals copied, the later parts' added
 * where they meet an address, the names set on the addresses named (a window holds tens of
 * thousands of addresses, nearly all in its settled days: no lookup is made for each of them) —
 * then rows only for the addresses chosen, their parts' sums added.
 */
function topSenderRows(parts: readonly SumsPart[], names: NameRow[], limit: number): NamedSenderRow[] {
  if (!parts.length) return [];
  const first = parts[0]!;
  const ips = first.ips.slice();
  const messages = Array.from(first.messages);
  const at = placesOf(first);
  const later = new Map<string, number>();
  const placeOf = (ip: string) => at.get(ip) ?? later.get(ip);
  for (let p = 1; p < parts.length; p++) {
    const part = parts[p]!;
    for (let j = 0; j < part.ips.length; j++) {
      const ip = part.ips[j]!;
      const i = placeOf(ip);
      if (i !== undefined) messages[i]! += part.messages[j]!;
      else {
        later.set(ip, ips.length);
        ips.push(ip);
        messages.push(part.messages[j]!);
      }
    }
  }
  // an address without a service or base domain is a sender of its own (its IP)
  const keys = new Array<string | null>(ips.length).fill(null);
  const named = new Map<string, NameRow>();
  for (const n of names) {
    const i = placeOf(n.ip);
    if (i === undefined) continue;
    named.set(n.ip, n);
    if (n.service || n.baseDomain) keys[i] = senderKeyOfRow({ service: n.service, baseDomain: n.baseDomain, sourceIp: n.ip });
  }
  const sums = parts.map((part) => part.sums);
  return ofTopSenders(messages, keys, limit).flatMap((i) => rowsNamed(ips[i]!, sumsAcross(sums, ips[i]!), named.get(ips[i]!)));
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
    // the settled days' sums kept while they hold, the last days' read afresh (read-cache.ts):
    // the window's parts, put together only for the senders listed
    const [parts, names] = await Promise.all([
      windowSums(
        ctx,
        `senders\n${opts.domain ?? ""}`,
        { fromDay, toDay },
        async (from, to) => [partOf(await sumsOf(ctx, { fromDay: from, toDay: to, domain: opts.domain }, null))],
        (settled, recent) => [...settled, ...recent],
        (part) => part.reduce((n, p) => n + p.ips.length, 0),
      ),
      namesOf(ctx, null),
    ]);
    const top = topSenderRows(parts, names, MAX_SENDERS);
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
 * The places of the senders' addresses that can be among the `limit` with the most mail (every
 * sender whose messages reach the limit-th sender's, ties included), so the summary details only
 * those: an address whose `keys` entry is null (unrecognised) is a sender of its own, and a window
 * holds thousands of them; a named address counts towards its sender's key. In order.
 */
export function ofTopSenders(messages: ArrayLike<number>, keys: readonly (string | null)[], limit: number): number[] {
  const namedTotals = new Map<string, number>();
  const totals: number[] = [];
  for (let i = 0; i < messages.length; i++) {
    const key = keys[i];
    if (key == null) totals.push(messages[i]!);
    else namedTotals.set(key, (namedTotals.get(key) ?? 0) + messages[i]!);
  }
  for (const total of namedTotals.values()) totals.push(total);
  const all = Array.from({ length: messages.length }, (_, i) => i);
  if (totals.length <= limit) return all;
  const least = Float64Array.from(totals).sort().reverse()[limit - 1]!;
  return all.filter((i) => (keys[i] == null ? messages[i]! : namedTotals.get(keys[i]!)!) >= least);
}
