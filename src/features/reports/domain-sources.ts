/**
 * One domain's sending IPs over a period, for its readiness and explain-and-fix views (the
 * domains feature asks for them): per IP the messages, DMARC passes and aligned counts with its
 * service and sender key, and the DKIM and SPF results receivers reported for it (d=, s=,
 * result; SPF domain, result) with their messages. Reads the daily roll-ups, never the records:
 * the domain's days of daily_sender_stats (on its (org, domain, day) index) summed per IP (the most mail first, at most
 * MAX_DOMAIN_SOURCES, named from source_names), with the DKIM and SPF results each of those IPs'
 * rows carries (`auth`; docs/rollups.md).
 */
import { sql } from "drizzle-orm";
import type { OrgContext } from "../../http/access";
import { byCodeUnit } from "../../lib/order";
import { senderKeyOfRow, senderOf } from "../../lib/senders";
import { topByTotal } from "./daily";
import { keptRead, windowSums } from "./read-cache";
import { authResultsOf } from "./rollups";

/** Sources read per domain at most (the most mail first). */
export const MAX_DOMAIN_SOURCES = 200;

export interface DomainSource {
  ip: string;
  service: string | null;
  baseDomain: string | null;
  sender: string;
  senderKey: string;
  messages: number;
  passed: number;
  spfAligned: number;
  dkimAligned: number;
  dkim: { domain: string; selector: string | null; result: string; messages: number }[];
  spf: { domain: string; result: string; messages: number }[];
}

/** A roll-up row read (PostgreSQL may hand numbers back as strings), with its DKIM and SPF results (`auth`) */
type DayRow = { ip: string; messages: number | string; passed: number | string; spfAligned: number | string; dkimAligned: number | string; auth: string | null; policyDomain: string };
type AuthRow = { ip: string; method: string; domain: string; selector: string; result: string; messages: number };

/**
 * The domain's sources of the UTC days `fromDay`…`toDay` (the roll-up day is the day a report's
 * period begins), most mail first, at most MAX_DOMAIN_SOURCES.
 */
export function domainSourcesBetween(ctx: OrgContext, domainId: string, range: { fromDay: number; toDay: number }): Promise<DomainSource[]> {
  // kept while the organization's roll-ups and names stay as they are (read-cache.ts)
  return keptRead(ctx, `domain-sources\n${domainId}\n${range.fromDay}\n${range.toDay}`, () => sourcesBetween(ctx, domainId, range));
}

/** One address's sums over some days of the domain, with its rows' DKIM and SPF results (`auth` and policy domain, decoded only for the addresses shown). */
interface IpSums {
  ip: string;
  messages: number;
  passed: number;
  spfAligned: number;
  dkimAligned: number;
  auth: (readonly [text: string, policyDomain: string])[];
}

async function sourcesBetween(ctx: OrgContext, domainId: string, range: { fromDay: number; toDay: number }): Promise<DomainSource[]> {
  const orgId = ctx.actor.orgId;
  // the settled days' sums kept while they hold, the last days' read afresh (read-cache.ts)
  const perIp = await windowSums(ctx, `domain-sources\n${domainId}`, range, (fromDay, toDay) => sumsOf(ctx, domainId, fromDay, toDay), addedSums, sizeOfSums);
  const chosen = topByTotal(perIp, (s) => s.messages, MAX_DOMAIN_SOURCES).map((ip) => perIp.get(ip)!);
  if (!chosen.length) return [];
  const inChosen = sql.join(chosen.map((c) => sql`${c.ip}`), sql`, `);
  const names = await ctx.store.rows<{ ip: string; service: string | null; baseDomain: string | null }>(sql`
    SELECT n.source_ip AS "ip", n.service AS "service", n.base_domain AS "baseDomain" FROM source_names n WHERE n.org_id = ${orgId} AND n.source_ip IN (${inChosen})`);
  const named = new Map(names.map((n) => [n.ip, n]));
  // in the chosen order: the most mail first, ties by address in code-unit order (never locale order)
  const top: DomainSource[] = chosen.map((c) => {
    const n = named.get(c.ip);
    const row = { sourceIp: c.ip, service: n?.service ?? null, baseDomain: n?.baseDomain ?? null };
    return { ip: c.ip, service: row.service, baseDomain: row.baseDomain, sender: senderOf(row).sender, senderKey: senderKeyOfRow(row), messages: c.messages, passed: c.passed, spfAligned: c.spfAligned, dkimAligned: c.dkimAligned, dkim: [], spf: [] };
  });
  const wanted = new Map(top.map((s) => [s.ip, s]));
  // the DKIM and SPF results of the IPs shown, from their rows' `auth` (decoded only for those
  // IPs), summed here per (IP, method, domain, selector, result)
  const summed = new Map<string, AuthRow>();
  for (const { ip, auth } of chosen)
    for (const [text, policyDomain] of auth)
      for (const r of authResultsOf(text, policyDomain)) {
        const at = `${ip}\n${r.method}\n${r.authDomain}\n${r.selector}\n${r.result}`;
        const cur = summed.get(at);
        if (cur) cur.messages += r.messages;
        else summed.set(at, { ip, method: r.method, domain: r.authDomain, selector: r.selector, result: r.result, messages: r.messages });
      }
  const auth = [...summed.values()].sort((a, b) => byCodeUnit(a.ip, b.ip) || byCodeUnit(a.method, b.method) || byCodeUnit(a.domain, b.domain) || byCodeUnit(a.selector, b.selector) || byCodeUnit(a.result, b.result));
  for (const a of auth) {
    const s = wanted.get(a.ip);
    if (!s) continue;
    if (a.method === "dkim") s.dkim.push({ domain: a.domain, selector: a.selector || null, result: a.result, messages: a.messages });
    else if (a.method === "spf") s.spf.push({ domain: a.domain, result: a.result, messages: a.messages });
  }
  return top;
}

/**
 * The domain's days `fromDay`…`toDay` summed per IP: stepped through and summed here (SQL's
 * GROUP BY over every address-day costs a temporary B-tree several times the read), on SQLite
 * on the (org, domain, day) index by name: the table is kept in (organization, day, …) order
 * (WITHOUT ROWID), which a database without statistics yet would scan across all the
 * organization's domains instead.
 */
async function sumsOf(ctx: OrgContext, domainId: string, fromDay: number, toDay: number): Promise<Map<string, IpSums>> {
  const byDomain = ctx.store.dialect === "sqlite" ? sql`INDEXED BY daily_sender_stats_org_domain_day_idx` : sql``;
  const perIp = new Map<string, IpSums>();
  await ctx.store.eachRow<DayRow>(
    sql`
    SELECT s.source_ip AS "ip", s.messages AS "messages", s.passed AS "passed", s.spf_aligned AS "spfAligned", s.dkim_aligned AS "dkimAligned", s.auth AS "auth", s.policy_domain AS "policyDomain"
    FROM daily_sender_stats s ${byDomain}
    WHERE s.org_id = ${ctx.actor.orgId} AND s.domain_id = ${domainId} AND s.day >= ${fromDay} AND s.day <= ${toDay}`,
    (d) => {
      let cur = perIp.get(d.ip);
      if (!cur) perIp.set(d.ip, (cur = { ip: d.ip, messages: 0, passed: 0, spfAligned: 0, dkimAligned: 0, auth: [] }));
      cur.messages += Number(d.messages);
      cur.passed += Number(d.passed);
      cur.spfAligned += Number(d.spfAligned);
      cur.dkimAligned += Number(d.dkimAligned);
      if (d.auth !== null) cur.auth.push([d.auth, d.policyDomain]);
    },
  );
  return perIp;
}

/** The sums of two parts of a window, changing neither. */
function addedSums(settled: Map<string, IpSums>, recent: Map<string, IpSums>): Map<string, IpSums> {
  const merged = new Map(settled);
  for (const [ip, r] of recent) {
    const had = settled.get(ip);
    merged.set(
      ip,
      had
        ? { ip, messages: had.messages + r.messages, passed: had.passed + r.passed, spfAligned: had.spfAligned + r.spfAligned, dkimAligned: had.dkimAligned + r.dkimAligned, auth: [...had.auth, ...r.auth] }
        : r,
    );
  }
  return merged;
}

/** What a part holds: its addresses and their rows' results. */
function sizeOfSums(part: Map<string, IpSums>): number {
  let size = part.size;
  for (const s of part.values()) size += s.auth.length;
  return size;
}
