/**
 * Figures over the organisation's stored reports that other features show (the dashboard's
 * numbers, tasks and threats). Times are epoch seconds in both stores; sums and counts are
 * read through Number() because PostgreSQL hands 64-bit results back as strings.
 */
import { sql } from "drizzle-orm";
import { smaller } from "../../db/sql";
import type { OrgContext, ServiceContext } from "../../http/access";
import { byCodeUnit, greaterText } from "../../lib/order";
import { failingSenders, type FailingMailRow } from "../../lib/task-inputs";
import type { FailingSender } from "../../lib/tasks";
import { windowSums } from "./read-cache";
import { sourceNamesOf } from "./source-names";

type Ctx = Pick<ServiceContext, "store">;
const secs = (d: Date) => Math.floor(d.getTime() / 1000);
const date = (s: number | string) => new Date(Number(s) * 1000);

/** Per domain, when the last aggregate report processed by `until` says mail was seen (its period end, or when it arrived if earlier). */
export async function lastReportByDomain(ctx: Ctx, orgId: string, until: Date): Promise<Map<string, Date>> {
  const rows = await ctx.store.rows<{ domainId: string; last: number | string }>(sql`
    SELECT domain_id AS "domainId", MAX(${smaller(sql`date_end`, sql`processed_at`)}) AS "last"
    FROM aggregate_reports WHERE org_id = ${orgId} AND processed_at <= ${secs(until)} GROUP BY domain_id`);
  return new Map(rows.map((r) => [r.domainId, date(r.last)]));
}

/** UTC day (days since 1970-01-01) of a moment. */
const dayOf = (d: Date) => Math.floor(secs(d) / 86_400);

/**
 * DMARC-failing mail per domain and sender, from the daily sender roll-ups of the UTC days
 * after `from`'s day up to `to`'s (the roll-up day is the day a report's period begins): per
 * sending service, and for unrecognised mail per base domain, else per IP (the Senders view's
 * grouping, so each row can carry the user's mark on that sender). IPs without a name in
 * source_names and not in `markedIps` (the IPs the user marked one by one) come back as one
 * unrecognised entry per domain (their IPs counted in `sources`): the tasks only add those up.
 *
 * The window's failing roll-up rows are stepped through once, in index order, and summed here per domain
 * and IP: cheaper than SQL's GROUP BY over two text keys (a temporary B-tree of every
 * address-day); the sums of its settled days are kept while they hold (read-cache.ts,
 * windowSums). The names are one read of the organisation's named IPs instead of one lookup per
 * row.
 */
export async function failingMailByService(ctx: OrgContext, from: Date, to: Date, markedIps: readonly string[] = []): Promise<FailingSender[]> {
  const [rows, names] = await Promise.all([
    // the settled days' sums kept while they hold, the last days' read afresh (read-cache.ts)
    windowSums(ctx, "failing-mail", { fromDay: dayOf(from) + 1, toDay: dayOf(to) }, (fromDay, toDay) => failingPerAddress(ctx, fromDay, toDay), (settled, recent) => [...settled, ...recent], (part) => part.length),
    ctx.store.rows<{ ip: string; service: string | null; baseDomain: string | null }>(sql`
      SELECT source_ip AS "ip", service AS "service", base_domain AS "baseDomain" FROM source_names WHERE org_id = ${ctx.actor.orgId}`),
  ]);
  const named = new Map(names.map((n) => [n.ip, n]));
  return failingSenders(rows, (ip) => named.get(ip), markedIps);
}

/** The failing mail of the UTC days `fromDay`…`toDay`, summed per domain and address (failingSenders sums them further). */
async function failingPerAddress(ctx: OrgContext, fromDay: number, toDay: number): Promise<FailingMailRow[]> {
  // per domain, its addresses; the rows stepped through, never all held (PostgreSQL may hand numbers back as strings)
  const sums = new Map<string, Map<string, FailingMailRow>>();
  type Row = { domainId: string; ip: string; failing: number | string; delivered: number | string; firstSeen: number | string };
  await ctx.store.eachRow<Row>(
    sql`
    SELECT s.domain_id AS "domainId", s.source_ip AS "ip", s.messages - s.passed AS "failing", s.failed_delivered AS "delivered", s.first_failed_at AS "firstSeen"
    FROM daily_sender_stats s
    WHERE s.org_id = ${ctx.actor.orgId} AND s.day >= ${fromDay} AND s.day <= ${toDay} AND s.first_failed_at IS NOT NULL`,
    ({ domainId, ip, failing, delivered, firstSeen }) => {
      let ofDomain = sums.get(domainId);
      if (!ofDomain) sums.set(domainId, (ofDomain = new Map()));
      const cur = ofDomain.get(ip);
      if (!cur) ofDomain.set(ip, { domainId, ip, failing: Number(failing), delivered: Number(delivered), firstSeen: Number(firstSeen) });
      else {
        cur.failing += Number(failing);
        cur.delivered += Number(delivered);
        cur.firstSeen = Math.min(cur.firstSeen, Number(firstSeen));
      }
    },
  );
  const out: FailingMailRow[] = [];
  for (const ofDomain of sums.values()) for (const row of ofDomain.values()) out.push(row);
  return out;
}

/** Messages and DMARC-passing messages per domain, from the daily roll-ups of the UTC days after `from`'s day up to `to`'s. */
export async function trafficByDomain(ctx: Ctx, orgId: string, from: Date, to: Date): Promise<{ domainId: string; messages: number; passing: number }[]> {
  const rows = await ctx.store.rows<{ domainId: string; messages: number | string; passing: number | string }>(sql`
    SELECT domain_id AS "domainId", SUM(messages) AS "messages", SUM(passed) AS "passing"
    FROM daily_domain_stats WHERE org_id = ${orgId} AND day > ${dayOf(from)} AND day <= ${dayOf(to)} GROUP BY domain_id`);
  return rows.map((r) => ({ domainId: r.domainId, messages: Number(r.messages), passing: Number(r.passing) }));
}

/** Aggregate, failure and TLS reports processed in (from, to]. */
export async function reportsProcessedBetween(ctx: Ctx, orgId: string, from: Date, to: Date): Promise<number> {
  const f = secs(from);
  const t = secs(to);
  const [row] = await ctx.store.rows<{ n: number | string }>(sql`
    SELECT (SELECT COUNT(*) FROM aggregate_reports WHERE org_id = ${orgId} AND processed_at > ${f} AND processed_at <= ${t})
         + (SELECT COUNT(*) FROM failure_reports WHERE org_id = ${orgId} AND processed_at > ${f} AND processed_at <= ${t})
         + (SELECT COUNT(*) FROM tls_reports WHERE org_id = ${orgId} AND processed_at > ${f} AND processed_at <= ${t}) AS "n"`);
  return Number(row?.n ?? 0);
}

/** Messages and DMARC-passing messages of the aggregate reports processed in (from, to]. */
export async function messagesProcessedBetween(ctx: Ctx, orgId: string, from: Date, to: Date): Promise<{ messages: number; passing: number }> {
  const [row] = await ctx.store.rows<{ messages: number | string; passing: number | string }>(sql`
    SELECT COALESCE(SUM(message_count), 0) AS "messages", COALESCE(SUM(pass_count), 0) AS "passing"
    FROM aggregate_reports WHERE org_id = ${orgId} AND processed_at > ${secs(from)} AND processed_at <= ${secs(to)}`);
  return { messages: Number(row?.messages ?? 0), passing: Number(row?.passing ?? 0) };
}

export interface FailingSource {
  ip: string;
  attempts: number;
  delivered: number;
  country: string | null;
  city: string | null;
  ptr: string | null;
  service: string | null;
  /** the base domain of its reverse DNS name, when it has one */
  baseDomain: string | null;
  lastSeenAt: Date;
  /** policy domains the failing mail claimed, sorted */
  domains: string[];
}

/**
 * Source IPs whose mail failed DMARC, most attempts first (ties by address), at most `limit`,
 * from the daily sender roll-ups of the UTC days `fromDay`…`toDay`: the days' failing rows read
 * once and summed per IP here (cheaper than SQL's GROUP BY, DISTINCT list and ORDER BY over
 * every address-day), then the few shown are named from source_names.
 */
export async function failingSources(ctx: Ctx, orgId: string, opts: { fromDay: number; toDay: number; limit: number }): Promise<FailingSource[]> {
  const rows = await ctx.store.rows<{ ip: string; country: string | null; city: string | null; domain: string } & Record<"failing" | "delivered" | "lastSeen", number | string>>(sql`
    SELECT s.source_ip AS "ip", s.messages - s.passed AS "failing", s.failed_delivered AS "delivered", s.country AS "country", s.city AS "city",
           s.last_failed_at AS "lastSeen", s.policy_domain AS "domain"
    FROM daily_sender_stats s
    WHERE s.org_id = ${orgId} AND s.day >= ${opts.fromDay} AND s.day <= ${opts.toDay} AND s.last_failed_at IS NOT NULL`);
  interface Sum { ip: string; attempts: number; delivered: number; country: string | null; city: string | null; lastSeen: number; domains: Set<string> }
  const sums = new Map<string, Sum>();
  for (const r of rows) {
    const cur = sums.get(r.ip);
    if (!cur) {
      sums.set(r.ip, { ip: r.ip, attempts: Number(r.failing), delivered: Number(r.delivered), country: r.country, city: r.city, lastSeen: Number(r.lastSeen), domains: new Set([r.domain]) });
      continue;
    }
    cur.attempts += Number(r.failing);
    cur.delivered += Number(r.delivered);
    cur.country = greaterText(cur.country, r.country);
    cur.city = greaterText(cur.city, r.city);
    if (Number(r.lastSeen) > cur.lastSeen) cur.lastSeen = Number(r.lastSeen);
    cur.domains.add(r.domain);
  }
  const top = [...sums.values()].sort((a, b) => b.attempts - a.attempts || byCodeUnit(a.ip, b.ip)).slice(0, opts.limit);
  if (!top.length) return [];
  const named = await sourceNamesOf(ctx.store, orgId, top.map((t) => t.ip));
  return top.map((t) => {
    const n = named.get(t.ip);
    return {
      ip: t.ip,
      attempts: t.attempts,
      delivered: t.delivered,
      country: t.country,
      city: t.city,
      ptr: n?.ptr ?? null,
      service: n?.service ?? null,
      baseDomain: n?.baseDomain ?? null,
      lastSeenAt: date(t.lastSeen),
      domains: [...t.domains].sort(),
    };
  });
}
