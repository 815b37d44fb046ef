/** GET /api/senders: who sends mail as the organisation's domains, and whether it is authenticated. */
import { sql } from "drizzle-orm";
import type { OrgContext } from "../../http/access";
import { MAX_SENDERS, senderKeyOfRow, summariseSenders, type SenderRow, type SenderSummary } from "../../lib/senders";
import { senderMarks } from "./sender-marks";

const DAY = 86_400;

type Sums = "messages" | "passing" | "spfAligned" | "dkimAligned" | "lastSeen";
/** A sender row as the database answers it: PostgreSQL hands sums back as strings. */
export type SenderSums = Omit<SenderRow, Sums> & Record<Sums, number | string>;

/**
 * The columns of a sender row (src/lib/senders.ts SenderRow), summed over `aggregate_records rec`
 * joined to `aggregate_reports r` and grouped by SENDER_ROW_GROUP.
 */
export const SENDER_ROW_COLUMNS = sql`rec.source_ip AS "sourceIp", rec.service AS "service", rec.service_type AS "serviceType", rec.base_domain AS "baseDomain",
           r.policy_domain AS "policyDomain", rec.country AS "country",
           SUM(rec.message_count) AS "messages",
           SUM(CASE WHEN rec.dmarc_pass = ${true} THEN rec.message_count ELSE 0 END) AS "passing",
           SUM(CASE WHEN rec.spf_aligned = 'pass' THEN rec.message_count ELSE 0 END) AS "spfAligned",
           SUM(CASE WHEN rec.dkim_aligned = 'pass' THEN rec.message_count ELSE 0 END) AS "dkimAligned",
           MAX(rec.date_begin) AS "lastSeen"`;
export const SENDER_ROW_GROUP = sql`rec.source_ip, rec.service, rec.service_type, rec.base_domain, r.policy_domain, rec.country`;

/** A database row of SENDER_ROW_COLUMNS as a sender row (PostgreSQL hands sums back as strings). */
export const senderRowOf = <R extends SenderSums>(r: R): Omit<R, Sums> & SenderRow => ({
  ...r,
  messages: Number(r.messages),
  passing: Number(r.passing),
  spfAligned: Number(r.spfAligned),
  dkimAligned: Number(r.dkimAligned),
  lastSeen: Number(r.lastSeen) * 1000,
});

/** Source IPs per statement when a read names them (far below SQLite's and PostgreSQL's parameter limits). */
const IP_CHUNK = 500;

/**
 * The sender rows of the organisation over the UTC days `fromDay`…`toDay` of the daily sender
 * roll-ups (optionally of one policy domain, and of some IPs only: `ips` to read only those
 * addresses' days on the (org_id, source_ip, day) index): summed per IP, policy domain and
 * country, then named from source_names (its PTR's service and base domain). The window's
 * roll-up rows are read once as they come and summed here (cheaper than SQL's GROUP BY over
 * three text keys, a temporary B-tree of every address-day), named from one read of the
 * organisation's names (or of the given IPs' names).
 */
export async function senderRowsBetween(ctx: OrgContext, range: { fromDay: number; toDay: number; domain?: string; ips?: string[] }): Promise<(SenderSums & { ptr: string | null })[]> {
  if (range.ips) {
    const rows: (SenderSums & { ptr: string | null })[] = [];
    for (let i = 0; i < range.ips.length; i += IP_CHUNK) rows.push(...(await senderRowsOf(ctx, range, range.ips.slice(i, i + IP_CHUNK))));
    return rows;
  }
  return senderRowsOf(ctx, range, null);
}

type DayRow = Record<"ip" | "policyDomain", string> & { country: string | null } & Record<"messages" | "passed" | "spfAligned" | "dkimAligned" | "lastBegin", number | string>;
type NameRow = { ip: string; ptr: string; service: string | null; serviceType: string | null; baseDomain: string | null };

async function senderRowsOf(ctx: OrgContext, range: { fromDay: number; toDay: number; domain?: string }, ips: string[] | null): Promise<(SenderSums & { ptr: string | null })[]> {
  const orgId = ctx.actor.orgId;
  if (ips && !ips.length) return [];
  const forDomain = range.domain ? sql`AND lower(s.policy_domain) = ${range.domain}` : sql``;
  const inIps = ips ? sql.join(ips.map((ip) => sql`${ip}`), sql`, `) : null;
  const [rows, names] = await Promise.all([
    ctx.store.rows<DayRow>(sql`
      SELECT s.source_ip AS "ip", s.policy_domain AS "policyDomain", s.country AS "country", s.messages AS "messages", s.passed AS "passed",
             s.spf_aligned AS "spfAligned", s.dkim_aligned AS "dkimAligned", s.last_begin AS "lastBegin"
      FROM daily_sender_stats s
      WHERE s.org_id = ${orgId} ${inIps ? sql`AND s.source_ip IN (${inIps})` : sql``} AND s.day >= ${range.fromDay} AND s.day <= ${range.toDay} ${forDomain}`),
    ctx.store.rows<NameRow>(sql`
      SELECT n.source_ip AS "ip", n.ptr AS "ptr", n.service AS "service", n.service_type AS "serviceType", n.base_domain AS "baseDomain"
      FROM source_names n WHERE n.org_id = ${orgId} ${inIps ? sql`AND n.source_ip IN (${inIps})` : sql``}`),
  ]);
  const named = new Map(names.map((n) => [n.ip, n]));
  const sums = new Map<string, SenderSums & { ptr: string | null }>();
  for (const r of rows) {
    // NULL countries are one group, apart from any text
    const key = `${r.ip}\n${r.policyDomain}\n${r.country === null ? "\u0000" : `=${r.country}`}`;
    const cur = sums.get(key);
    if (cur) {
      cur.messages = (cur.messages as number) + Number(r.messages);
      cur.passing = (cur.passing as number) + Number(r.passed);
      cur.spfAligned = (cur.spfAligned as number) + Number(r.spfAligned);
      cur.dkimAligned = (cur.dkimAligned as number) + Number(r.dkimAligned);
      if (Number(r.lastBegin) > (cur.lastSeen as number)) cur.lastSeen = Number(r.lastBegin);
      continue;
    }
    const n = named.get(r.ip);
    sums.set(key, {
      sourceIp: r.ip,
      service: n?.service ?? null,
      serviceType: n?.serviceType ?? null,
      baseDomain: n?.baseDomain ?? null,
      ptr: n?.ptr ?? null,
      policyDomain: r.policyDomain,
      country: r.country,
      messages: Number(r.messages),
      passing: Number(r.passed),
      spfAligned: Number(r.spfAligned),
      dkimAligned: Number(r.dkimAligned),
      lastSeen: Number(r.lastBegin),
    });
  }
  return [...sums.values()];
}

/**
 * Senders of the last `days` UTC days (today included, ending at `now`; the roll-up day is the
 * day a report's period begins), in the caller's organisation, optionally for one policy domain,
 * grouped by sender, each with the user's mark (which decides the verdict when set).
 */
export async function listSenders(ctx: OrgContext, opts: { days: number; domain?: string }): Promise<SenderSummary[]> {
  const toDay = Math.floor(ctx.now().getTime() / 1000 / DAY);
  const rows = await senderRowsBetween(ctx, { fromDay: toDay - opts.days + 1, toDay, domain: opts.domain });
  return summariseSenders(ofTopSenders(rows.map(senderRowOf), MAX_SENDERS), MAX_SENDERS, await senderMarks(ctx));
}

/**
 * The rows of the senders that can be among the `limit` with the most mail (every sender whose
 * messages reach the limit-th sender's, ties included), so the summary details only those:
 * an unrecognised IP is a sender of its own, and a window holds thousands of them.
 */
export function ofTopSenders(rows: SenderRow[], limit: number): SenderRow[] {
  const totals = new Map<string, number>();
  // an address's rows share its names, so its sender once
  const keyOfIp = new Map<string, string>();
  const keys = rows.map((row) => {
    let key = keyOfIp.get(row.sourceIp);
    if (key === undefined) keyOfIp.set(row.sourceIp, (key = senderKeyOfRow(row)));
    totals.set(key, (totals.get(key) ?? 0) + row.messages);
    return key;
  });
  if (totals.size <= limit) return rows;
  const least = [...totals.values()].sort((a, b) => b - a)[limit - 1]!;
  return rows.filter((_, i) => totals.get(keys[i]!)! >= least);
}
